import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import {
  clientSecretRoutes,
  createHttpApp,
  healthRoutes,
  metricsRoute,
  openApiRoute,
  rateLimitMiddleware,
  speechRoutes,
  type RouteModule,
  type ServiceMetrics,
} from '@svc/adapters-http';
import { OpusscriptOpusCodec } from '@svc/adapters-inference';
import {
  REALTIME_TOKENS,
  SHARED_TOKENS,
  SPEECH_TOKENS,
  type ClientSecretRepository,
  type Clock,
  type Hasher,
  type IdGenerator,
  type Logger,
  type ManageApiKeys,
  type Principal,
  type RateLimiter,
  type ReplySpeaker,
  type VoiceCatalog,
} from '@svc/core';
import { composeRealtime, type Realtime } from './composition/realtime.js';
import { createRealtimeAudioEngines } from './composition/realtime-audio.js';
import { playgroundModule } from './composition/playground.js';
import type { Voices } from './composition/voices.js';
import type { ServerConfig } from './config.js';
import { buildContainer, type Overrides, type ServiceContainer } from './container.js';
import { SERVER_TOKENS } from './tokens.js';

export interface RunningServer {
  /** http(s)://host:port */
  url: string;
  /** ws(s)://host:port */
  wsUrl: string;
  port: number;
  httpServer: Server;
  services: ServiceContainer;
  realtime: Realtime;
  close(): Promise<void>;
}

export const SERVICE_INFO = {
  title: 'svc speech, avatar video and realtime voice service',
  version: '1.0.0',
  description: 'Self-hostable implementation of the service interface v1.0.0.',
};

/** Builds the container, the REST app and (on the same port) the realtime WebSocket gateway. */
export async function startServer(config: ServerConfig, overrides: Overrides = new Map()): Promise<RunningServer> {
  const services = await buildContainer(config, overrides);
  const logger = services.get<Logger>(SHARED_TOKENS.Logger);
  const metrics = services.get<ServiceMetrics>(SERVER_TOKENS.Metrics);
  const keys = services.get<ManageApiKeys>(SERVER_TOKENS.ManageApiKeys);
  const dataSource = services.get<DataSource>(SERVER_TOKENS.DataSource);
  const limiter = services.get<RateLimiter>(SHARED_TOKENS.RateLimiter);
  const catalog = services.get<VoiceCatalog>(SPEECH_TOKENS.VoiceCatalog);

  // One port for REST and WebSocket: the server exists first, the WS gateway attaches to its
  // upgrade event, the REST app to its request event.
  const httpServer: Server = config.tls
    ? createHttpsServer({ cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) })
    : createHttpServer();
  httpServer.requestTimeout = 0; // long streamed responses are legitimate; idle sockets still time out
  httpServer.keepAliveTimeout = 5_000;

  const voices = services.get<Voices>(SERVER_TOKENS.Voices);
  // A realtime output voice may be one of the caller's registered voices (scoped like the REST API).
  const customVoiceExists = async (voice: string, principal: Principal) =>
    voices.get.execute(principal, voice).then(
      () => true,
      () => false,
    );
  const audioEngines = await createRealtimeAudioEngines(config.env, logger);
  const realtime = composeRealtime({
    server: httpServer,
    apiKeys: keys,
    ids: services.get<IdGenerator>(SHARED_TOKENS.IdGenerator),
    hasher: services.get<Hasher>(SHARED_TOKENS.Hasher),
    clock: services.get<Clock>(SHARED_TOKENS.Clock),
    logger,
    env: config.env,
    clientSecrets: services.get<ClientSecretRepository>(REALTIME_TOKENS.ClientSecretRepository),
    presetVoices: catalog.names(),
    voiceExists: customVoiceExists,
    audio: {
      replySpeaker: services.get<ReplySpeaker>(REALTIME_TOKENS.ReplySpeaker),
      voiceActivityDetector: audioEngines.voiceActivityDetector ?? undefined,
      speechRecognizer: audioEngines.speechRecognizer ?? undefined,
      opusCodec: new OpusscriptOpusCodec(),
    },
  });
  metrics.trackRealtimeSessions(() => realtime.gateway.activeSessions());

  const modules: RouteModule[] = [
    openApiRoute(SERVICE_INFO),
    speechRoutes({
      synthesize: services.get(SPEECH_TOKENS.SynthesizeSpeech),
      catalog: services.get(SPEECH_TOKENS.VoiceCatalog),
      jsonBodyLimit: config.maxJsonBodyBytes,
      rateLimit: rateLimitMiddleware(limiter, 'speech'),
    }),
    voices.routes({ jsonBodyLimit: config.maxJsonBodyBytes, rateLimit: rateLimitMiddleware(limiter, 'voices') }),
    clientSecretRoutes({ mint: realtime.mintClientSecret, jsonBodyLimit: config.maxJsonBodyBytes }),
  ];
  const observability = metricsRoute(metrics);
  const app = createHttpApp({
    logger,
    authenticate: (secret) => keys.authenticate(secret),
    metrics,
    publicModules: [
      healthRoutes([{ name: 'database', check: async () => void (await dataSource.query('SELECT 1')) }]),
      playgroundModule(),
      ...(config.metricsPublic ? [observability] : []),
    ],
    modules: config.metricsPublic ? modules : [...modules, observability],
  });

  httpServer.on('request', app.callback());

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const scheme = config.tls ? 'https' : 'http';
  const url = `${scheme}://${host}:${port}`;
  const wsUrl = `${config.tls ? 'wss' : 'ws'}://${host}:${port}`;

  let closed = false;
  return {
    url,
    wsUrl,
    port,
    httpServer,
    services,
    realtime,
    async close() {
      if (closed) return;
      closed = true;
      await realtime.close();
      await audioEngines.close();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeIdleConnections();
        setTimeout(() => httpServer.closeAllConnections(), config.shutdownGraceMs).unref();
      });
      await services.close();
    },
  };
}
