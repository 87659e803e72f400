import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createHttpApp, type RouteModule } from '@svc/adapters-http';
import { dependencyUnavailable } from '@svc/adapters-storage';
import { SHARED_TOKENS } from '@svc/core';
import type { ServerConfig } from './config.js';
import { buildContainer, type Overrides, type ServiceContainer } from './container.js';
import type { Attachment, ModuleContext, ServerModule } from './composition/module.js';
import { SERVER_MODULES } from './composition/modules.js';
import type { RealtimeAttachment } from './composition/realtime.js';
import type { WyomingAttachment } from './composition/wyoming.js';
import type { SipAttachment } from './composition/realtime-sip.js';
import { SERVER_TOKENS } from './tokens.js';
import { answerClientErrorsAsJson } from './runtime/http-client-errors.js';
import { clearScratchDir } from './runtime/scratch-dir.js';
import { servesApi } from './runtime/process-role.js';
import { settlesBy } from './runtime/deadline.js';
import { explainListenError } from './runtime/listen-error.js';

export { SERVICE_INFO } from './composition/foundation.js';

/**
 * Of the shutdown grace, what is kept for closing the queue, engines and connections once in-flight
 * requests are cut: a quarter, at most 2 s (so 8 s of the default 10 s go to requests).
 */
export function closeReserveMs(graceMs: number): number {
  return Math.min(2_000, Math.floor(graceMs / 4));
}
/**
 * Closing stops this long before the deadline, so the process has exited by it (a tenth of the
 * grace, 100-500 ms: a loaded machine delays timers by that much).
 */
function closeExitMarginMs(graceMs: number): number {
  return Math.max(100, Math.min(500, Math.floor(graceMs / 10)));
}

export interface RunningServer {
  /** http(s)://host:port */
  url: string;
  /** ws(s)://host:port */
  wsUrl: string;
  port: number;
  httpServer: Server;
  services: ServiceContainer;
  /** What the realtime module attached (its gateway). */
  realtime: RealtimeAttachment;
  /** The Wyoming server, when SVC_WYOMING_PORT is set. */
  wyoming: WyomingAttachment | null;
  /** The SIP server (phone calls), when SVC_SIP_PORT is set. */
  sip: SipAttachment | null;
  close(): Promise<void>;
}

/**
 * Builds the container from the modules, then one HTTP(S) server for all of them: each module's
 * REST routes in one Koa app, and what needs the server itself (the realtime WebSocket gateway)
 * attached to it.
 */
export async function startServer(
  config: ServerConfig,
  overrides: Overrides = new Map(),
  modules: readonly ServerModule[] = SERVER_MODULES,
): Promise<RunningServer> {
  clearScratchDir(config.settings.SVC_DATA_DIR);
  const services = await buildContainer(config, overrides, modules);
  const ctx: ModuleContext = { config, get: services.get };
  const keys = services.get(SERVER_TOKENS.ManageApiKeys);
  // Queue consumers, resume scans and recurring sweeps start now, before the port opens; a start
  // that fails stops what already started and closes the bindings.
  try {
    await services.start(ctx);
  } catch (err) {
    await services.close();
    throw err;
  }

  // One port for REST and WebSocket: the server exists first, the WS gateway attaches to its
  // upgrade event, the REST app to its request event.
  const { SVC_TLS_CERT: tlsCert, SVC_TLS_KEY: tlsKey } = config.settings;
  const tls = Boolean(tlsCert); // foundation's check: the two are set together
  // A request (headers and body) must arrive within SVC_REQUEST_TIMEOUT_MS: a client that stalls
  // mid-body is answered 408 instead of holding its connection. Node counts only the request's
  // arrival, so long streamed responses are not cut. It checks every quarter of that, at most 30 s.
  const requestTimeout = config.settings.SVC_REQUEST_TIMEOUT_MS;
  const timeouts = { requestTimeout, connectionsCheckingInterval: Math.min(30_000, Math.ceil(requestTimeout / 4)) };
  const httpServer: Server = tls
    ? createHttpsServer({ cert: readFileSync(tlsCert), key: readFileSync(tlsKey), ...timeouts })
    : createHttpServer(timeouts);
  // Node waits for the headers within the smaller of the two.
  httpServer.headersTimeout = Math.min(httpServer.headersTimeout, requestTimeout);
  httpServer.keepAliveTimeout = 5_000;
  answerClientErrorsAsJson(httpServer, services.get(SHARED_TOKENS.Logger));

  const attachments = new Map<string, Attachment>();
  const publicModules: RouteModule[] = [];
  const apiModules: RouteModule[] = [];
  try {
    for (const m of modules) {
      // A worker process serves only the foundation's probes and metrics; it attaches nothing.
      if (!servesApi(config) && m.name !== 'foundation') continue;
      const routes = m.routes?.(ctx);
      publicModules.push(...(routes?.public ?? []));
      apiModules.push(...(routes?.authenticated ?? []));
      const attached = m.attach ? await m.attach(httpServer, ctx) : null;
      if (attached) attachments.set(m.name, attached);
    }
    const app = createHttpApp({
      logger: services.get(SHARED_TOKENS.Logger),
      authenticate: (secret) => keys.authenticate(secret),
      metrics: services.get(SERVER_TOKENS.Metrics),
      publicModules,
      modules: apiModules,
      largeBodies: services.get(SERVER_TOKENS.LargeBodies),
      // A database or Redis that does not answer: 503 service_unavailable, not a 500.
      translateError: dependencyUnavailable,
    });
    // Koa's handler answers its own errors; the promise it returns carries nothing more.
    const handleRequest = app.callback();
    httpServer.on('request', (req, res) => void handleRequest(req, res));
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', (err) => reject(explainListenError(err, config.settings.SVC_HOST, config.settings.SVC_PORT)));
      httpServer.listen(config.settings.SVC_PORT, config.settings.SVC_HOST, () => resolve());
    });
  } catch (err) {
    for (const a of attachments.values()) await Promise.resolve(a.close()).catch(() => undefined);
    await services.close();
    throw err;
  }
  const port = (httpServer.address() as AddressInfo).port;
  const host = config.settings.SVC_HOST.includes(':') ? `[${config.settings.SVC_HOST}]` : config.settings.SVC_HOST;
  const url = `${tls ? 'https' : 'http'}://${host}:${port}`;
  const wsUrl = `${tls ? 'wss' : 'ws'}://${host}:${port}`;

  let closed = false;
  return {
    url,
    wsUrl,
    port,
    httpServer,
    services,
    // Absent on a worker process (it serves no WebSocket).
    realtime: attachments.get('realtime') as RealtimeAttachment,
    wyoming: (attachments.get('wyoming') as WyomingAttachment | undefined) ?? null,
    sip: (attachments.get('realtime-sip') as SipAttachment | undefined) ?? null,
    async close() {
      if (closed) return;
      closed = true;
      // The whole stop fits in SVC_SHUTDOWN_GRACE_MS, whatever is down (docs/deployment.md).
      const deadline = Date.now() + config.settings.SVC_SHUTDOWN_GRACE_MS;
      // 1. Stop accepting: the port closes, idle keep-alive connections with it.
      const drained = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      // 2. Realtime sessions are told (close 1001, see docs/deployment.md); the Wyoming port closes (busy connections get the grace).
      const requestsEnd = deadline - closeReserveMs(config.settings.SVC_SHUTDOWN_GRACE_MS);
      for (const a of [...attachments.values()].reverse())
        await settlesBy(
          Promise.resolve().then(() => a.close()),
          requestsEnd,
        );
      // 3. In-flight requests finish, until the grace minus what closing needs; then they are cut.
      const cut = setTimeout(() => httpServer.closeAllConnections(), Math.max(0, requestsEnd - Date.now()));
      await drained;
      clearTimeout(cut);
      // 4. The modules' started tasks stop (in reverse: workers return their jobs to the queue, sweeps
      //    end), then engines and connections close; what does not answer by the deadline (a Redis
      //    or database that is down) is left behind.
      const logger = services.get(SHARED_TOKENS.Logger);
      const givenUp = await services.close(deadline - closeExitMarginMs(config.settings.SVC_SHUTDOWN_GRACE_MS), (name, ms) =>
        logger.debug({ closed: name, ms }, 'shutdown: closed'),
      );
      if (givenUp.length > 0) {
        logger.warn(
          { givenUp },
          'shutdown: these did not close within the grace period and were left behind (a dependency that does not answer?)',
        );
      }
    },
  };
}
