import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { inboundBudgetLimits, InMemorySessionRegistry, ServiceUnavailableError, silentLogger, type AdmissionDecision, type Principal, type RealtimeSessionRegistry } from '@svc/core';
import { CLOSE_CODES } from './close-codes.js';
import WebSocket, { WebSocketServer } from 'ws';
import { readCredentials, selectProtocol, type Credentials } from './credentials.js';
import {
  DEFAULT_INBOUND_BYTES_PER_SECOND,
  DEFAULT_INBOUND_EVENTS_PER_SECOND,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MAX_PENDING_EVENTS,
  type RealtimeGateway,
  type RealtimeGatewayDeps,
  type RealtimeGatewayOptions,
} from './gateway-types.js';
import { rejectInvalidHandshake, rejectUpgrade } from './http-rejection.js';
import { RealtimeConnection } from './realtime-connection.js';

interface Credited {
  principal: Principal;
  /** The ephemeral key's session id (null for API keys). */
  secretSessionId: string | null;
}

/** What the gateway decided before the upgrade: refused (with its close) or admitted with a lease. */
type Admission =
  | { refused: 'invalid_credentials' | 'duplicate_session' | 'at_capacity' | 'over_capacity' | 'flood_cooldown' | 'dependency_unavailable'; reason?: string }
  | (Credited & { refused: null; lease: Extract<AdmissionDecision, { admitted: true }>['lease'] });

const REFUSAL_REASONS = {
  invalid_credentials: 'invalid API key or ephemeral key',
  duplicate_session: 'a session is already active for this ephemeral key',
  at_capacity: 'max concurrency exceeded; retry later',
  over_capacity: 'server at capacity; retry later',
  flood_cooldown: 'the last session of this key sent more than its inbound budget; retry later',
  dependency_unavailable: 'the service is temporarily unavailable; retry later',
} as const;

/**
 * Serves `GET /v1/realtime` WebSocket upgrades on an existing HTTP(S) server. Authentication
 * happens before the upgrade completes; refusals that have a WebSocket close code (3000, 4009,
 * 1013) are sent as a close right after the upgrade, as clients expect them there.
 */
export function attachRealtimeGateway(
  server: HttpServer | HttpsServer,
  deps: RealtimeGatewayDeps,
  options: RealtimeGatewayOptions,
): RealtimeGateway {
  const path = options.path ?? '/v1/realtime';
  const logger = deps.logger ?? silentLogger;
  // The admission rules (caps, one session per ephemeral key): this process's counts unless the
  // application shares them across processes (the Redis registry).
  const registry: RealtimeSessionRegistry = options.registry ?? new InMemorySessionRegistry({ maxSessions: options.maxSessions, maxSessionsPerKey: options.maxSessionsPerKey });
  const connections = new Set<RealtimeConnection>();
  const sockets = new Map<WebSocket, RealtimeConnection>();
  const keyOf = new Map<RealtimeConnection, string>();
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const eventsPerSecond = options.inboundEventsPerSecond ?? DEFAULT_INBOUND_EVENTS_PER_SECOND;
  const bytesPerSecond = options.inboundBytesPerSecond ?? DEFAULT_INBOUND_BYTES_PER_SECOND;
  const limits = {
    maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    maxPendingEvents: options.maxPendingEvents ?? DEFAULT_MAX_PENDING_EVENTS,
    inbound: inboundBudgetLimits(eventsPerSecond, bytesPerSecond, maxFrameBytes),
  };
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: maxFrameBytes,
    perMessageDeflate: false,
    handleProtocols: selectProtocol,
  });
  // With a listener, ws leaves the answer to us (else it writes a text/html page).
  wss.on('wsClientError', (err: Error, socket: Duplex) => rejectInvalidHandshake(socket, err));

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path && url.pathname !== `${path}/`) {
      rejectUpgrade(socket, 404, 'Not Found', `No WebSocket endpoint at ${url.pathname}; use ${path}.`, 'not_found');
      return;
    }
    void admit(readCredentials(req)).then((admission) => {
      if (socket.destroyed) {
        if (!admission.refused) void admission.lease.release().catch(() => undefined);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => open(ws, admission, url.searchParams.get('model')));
    });
  };

  async function admit(credentials: Credentials | null): Promise<Admission> {
    const credited = await credit(credentials);
    if (!credited || 'refused' in credited) return credited ?? { refused: 'invalid_credentials' };
    try {
      const decision = await registry.admit({ apiKeyId: credited.principal.apiKeyId, secretSessionId: credited.secretSessionId });
      if (decision.admitted) return { ...credited, refused: null, lease: decision.lease };
      // Said where an operator looks: a server refusing callers it cannot serve is working as designed, but should grow.
      if (decision.refusal === 'over_capacity') logger.info({ reason: decision.reason }, 'realtime session refused: server at capacity');
      if (decision.refusal === 'flood_cooldown') logger.info({ apiKeyId: credited.principal.apiKeyId, reason: decision.reason }, 'realtime session refused: its key flooded lately');
      return { refused: decision.refusal, reason: decision.reason };
    } catch (err) {
      logger.warn({ err: String(err) }, 'realtime session registry unavailable; session refused');
      return { refused: 'dependency_unavailable' };
    }
  }

  /** The key's principal; null when it is invalid; a refusal when the key store cannot be asked. */
  async function credit(credentials: Credentials | null): Promise<Credited | { refused: 'dependency_unavailable' } | null> {
    if (!credentials) return null;
    try {
      if (credentials.kind === 'api_key') return { principal: await deps.authenticateApiKey(credentials.secret), secretSessionId: null };
      const redeemed = await deps.redeemClientSecret(credentials.secret);
      return { principal: redeemed.principal, secretSessionId: redeemed.sessionId };
    } catch (err) {
      if (err instanceof ServiceUnavailableError) {
        logger.warn({ dependency: err.dependency }, 'realtime credentials could not be checked; session refused');
        return { refused: 'dependency_unavailable' };
      }
      return null;
    }
  }

  function open(ws: WebSocket, admission: Admission, urlModel: string | null): void {
    ws.on('error', (err) => logger.debug({ err: String(err) }, 'realtime socket error'));
    if (admission.refused) {
      options.onRefused?.(admission.refused);
      return ws.close(CLOSE_CODES[admission.refused], admission.reason ?? REFUSAL_REASONS[admission.refused]);
    }
    const { principal, secretSessionId, lease } = admission;
    // The connection's own warnings (a flooding or slow client) name the key, for the operator.
    const connection = new RealtimeConnection(ws, limits, logger.child({ apiKeyId: principal.apiKeyId }));
    connections.add(connection);
    sockets.set(ws, connection);
    keyOf.set(connection, principal.apiKeyId);
    let session: ReturnType<RealtimeGatewayDeps['createSession']> | null = null;
    ws.once('close', () => {
      connections.delete(connection);
      sockets.delete(ws);
      keyOf.delete(connection);
      lease.release().catch((err) => logger.warn({ err: String(err) }, 'could not release a realtime session slot; it expires with its lease'));
      if (connection.endedBy === 'inbound_rate_exceeded') registry.penalize?.({ apiKeyId: principal.apiKeyId, secretSessionId });
      session?.transportClosed();
    });
    try {
      session = deps.createSession({ principal, urlModel, ...(secretSessionId ? { sessionId: secretSessionId } : {}), output: connection });
    } catch (err) {
      logger.error({ err: String(err) }, 'could not start a realtime session');
      return connection.close('internal_error', 'internal error');
    }
    connection.attach(session);
  }

  server.on('upgrade', onUpgrade);

  // Revocation: the key may be revoked by this process or another (the keys CLI), so it is polled.
  let checkingKeys = false;
  const checkKeys = async (isKeyActive: (id: string) => Promise<boolean>) => {
    if (checkingKeys) return;
    checkingKeys = true;
    try {
      for (const keyId of new Set(keyOf.values())) {
        const active = await isKeyActive(keyId).catch(() => true); // a storage hiccup is not a revocation
        if (active) continue;
        for (const [connection, id] of keyOf) {
          if (id === keyId) connection.close('invalid_credentials', 'the API key of this session was revoked');
        }
        logger.info({ apiKeyId: keyId }, 'closed the realtime sessions of a revoked API key');
      }
    } finally {
      checkingKeys = false;
    }
  };
  const keyChecker = deps.isKeyActive
    ? setInterval(() => void checkKeys(deps.isKeyActive!), options.keyCheckIntervalMs ?? 2_000).unref()
    : null;

  const pingEvery = options.pingIntervalMs ?? 30_000;
  const pinger =
    pingEvery > 0
      ? setInterval(() => {
          for (const [ws, connection] of sockets) {
            if (!connection.alive) {
              ws.terminate();
              continue;
            }
            connection.alive = false;
            if (ws.readyState === WebSocket.OPEN) ws.ping();
          }
        }, pingEvery).unref()
      : null;

  return {
    activeSessions: () => registry.localSessions(),
    async close() {
      server.off('upgrade', onUpgrade);
      if (pinger) clearInterval(pinger);
      if (keyChecker) clearInterval(keyChecker);
      const closing = [...sockets.keys()].map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === WebSocket.CLOSED) return resolve();
            ws.once('close', () => resolve());
            const force = setTimeout(() => ws.terminate(), 2000);
            force.unref();
          }),
      );
      for (const connection of connections) connection.shutdown();
      await Promise.all(closing);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
