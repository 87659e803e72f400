import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import {
  inboundBudgetLimits,
  RealtimeCallNotFoundError,
  RealtimeCapacityError,
  silentLogger,
  type AdmittedSession,
  type JoinedCall,
  type Logger,
} from '@svc/core';
import WebSocket, { WebSocketServer } from 'ws';
import { CLOSE_CODES } from './close-codes.js';
import { readCredentials, selectProtocol } from './credentials.js';
import { creditConnection } from './credit.js';
import { admitConnection, gatewayAdmission, REFUSAL_REASONS, type GatewayAdmission } from './gateway-admission.js';
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
import { startLivenessPinger } from './liveness-pinger.js';
import { RealtimeConnection, type ConnectionLimits } from './realtime-connection.js';

/**
 * Serves `GET /v1/realtime` WebSocket upgrades on an existing HTTP(S) server. Authentication and
 * admission (the core's RealtimeAdmission, shared with WebRTC calls) happen before the upgrade
 * completes; refusals that have a WebSocket close code (3000, 4009, 1013) are sent as a close right
 * after the upgrade, as clients expect them there.
 */
export function attachRealtimeGateway(
  server: HttpServer | HttpsServer,
  deps: RealtimeGatewayDeps,
  options: RealtimeGatewayOptions,
): RealtimeGateway {
  const path = options.path ?? '/v1/realtime';
  const logger = deps.logger ?? silentLogger;
  const { admission, stop: stopAdmission } = gatewayAdmission(deps, options, logger);
  const limits = connectionLimits(options);
  const sockets = new Map<WebSocket, RealtimeConnection>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxFrameBytes,
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
    const callId = url.searchParams.get('call_id');
    if (callId !== null) return void joinCall(req, socket, head, callId);
    void admitConnection(readCredentials(req), deps, admission, logger).then((decided) => {
      if (socket.destroyed) {
        if (!decided.refused) decided.session.end('client_gone');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('error', (err) => logger.debug({ err: String(err) }, 'realtime socket error'));
        if (decided.refused) return refuse(ws, decided);
        openSession(ws, decided.session, url.searchParams.get('model'));
      });
    });
  };

  function refuse(ws: WebSocket, refusal: Extract<GatewayAdmission, { refused: string }>): void {
    options.onRefused?.(refusal.refused);
    // The socket's one log line, as a refused HTTP request has its access-log line (docs/deployment.md, Logs).
    logger.info({ refused: refusal.refused, code: CLOSE_CODES[refusal.refused] }, 'realtime connection refused');
    ws.close(CLOSE_CODES[refusal.refused], refusal.reason ?? REFUSAL_REASONS[refusal.refused]);
  }

  function openSession(ws: WebSocket, admitted: AdmittedSession, urlModel: string | null): void {
    const { principal, secretSessionId } = admitted;
    // The connection's own warnings (a flooding or slow client) name the key, for the operator.
    const connection = new RealtimeConnection(ws, limits, logger.child({ apiKeyId: principal.apiKeyId }));
    sockets.set(ws, connection);
    admitted.onRevoked(() => connection.close('invalid_credentials', 'the API key of this session was revoked'));
    let session: ReturnType<RealtimeGatewayDeps['createSession']> | null = null;
    const openedAt = Date.now();
    ws.once('close', (code: number) => {
      sockets.delete(ws);
      const endedBy = connection.endedBy ?? 'client_closed';
      admitted.end(endedBy);
      session?.transportClosed();
      // One line per session, at its end, as the access log has one per request: who, how it ended, how long.
      logger.info({ apiKeyId: principal.apiKeyId, code, endedBy, ms: Date.now() - openedAt }, 'realtime session closed');
    });
    try {
      session = deps.createSession({ principal, urlModel, ...(secretSessionId ? { sessionId: secretSessionId } : {}), output: connection });
    } catch (err) {
      logger.error({ err: String(err) }, 'could not start a realtime session');
      return connection.close('internal_error', 'internal error');
    }
    connection.attach(session);
  }

  /**
   * `?call_id=`: a WebSocket joins a live phone call (OpenAI's SIP flow) instead of starting a
   * session: it hears the call's session events and may send client events to it, until the call
   * ends (close 1000) or it leaves (the call goes on). No admission: the call holds its slot. Only
   * the call's own key finds it; any other id is refused with 404 call_not_found before the upgrade.
   * An API key only: an ephemeral key is handed to a browser for the one session it was minted for,
   * and must not reach (hear, steer) the calls its API key serves (401 before the upgrade).
   */
  async function joinCall(req: IncomingMessage, socket: Duplex, head: Buffer, callId: string): Promise<void> {
    const credentials = readCredentials(req);
    if (credentials?.kind === 'client_secret') {
      const message = 'An ephemeral key opens its own session only; join a call with the API key.';
      return rejectUpgrade(socket, 401, 'Unauthorized', message, 'invalid_api_key');
    }
    const credited = await creditConnection(credentials, deps, logger);
    if (!credited || 'refused' in credited) {
      const refusal = credited?.refused ?? 'invalid_credentials';
      return void wss.handleUpgrade(req, socket, head, (ws) => refuse(ws, { refused: refusal }));
    }
    if (socket.destroyed) return;
    let connection: RealtimeConnection | null = null;
    let joined: JoinedCall;
    try {
      if (!deps.joinCall) throw new RealtimeCallNotFoundError(callId);
      joined = deps.joinCall(callId, credited.principal, {
        send: (event) => connection?.send(event),
        callEnded: (reason) => (connection ? connection.close('call_ended', reason) : socket.destroy()),
      });
    } catch (err) {
      if (err instanceof RealtimeCallNotFoundError) return rejectUpgrade(socket, 404, 'Not Found', err.message, err.identifier);
      if (err instanceof RealtimeCapacityError) return rejectUpgrade(socket, 429, 'Too Many Requests', err.message, err.identifier);
      throw err;
    }
    socket.once('close', () => {
      if (!connection) joined.transportClosed();
    });
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', (err) => logger.debug({ err: String(err) }, 'realtime socket error'));
      const joiner = new RealtimeConnection(ws, limits, logger.child({ apiKeyId: credited.principal.apiKeyId, callId }));
      connection = joiner;
      sockets.set(ws, joiner);
      ws.once('close', () => {
        sockets.delete(ws);
        joined.transportClosed();
      });
      joiner.attach(joined);
    });
  }

  server.on('upgrade', onUpgrade);
  const stopPinger = startLivenessPinger(sockets, options.pingIntervalMs ?? 30_000);

  return {
    activeSessions: () => admission.localSessions(),
    async close() {
      server.off('upgrade', onUpgrade);
      stopPinger?.();
      stopAdmission();
      await closeAll(sockets, logger);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Every open socket closed with 1001 (terminated after 2 s if its peer does not answer). */
async function closeAll(sockets: ReadonlyMap<WebSocket, RealtimeConnection>, logger: Logger): Promise<void> {
  const closing = [...sockets.keys()].map(
    (ws) =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        setTimeout(() => ws.terminate(), 2000).unref();
      }),
  );
  for (const connection of sockets.values()) connection.shutdown();
  await Promise.all(closing);
  logger.debug({ closed: closing.length }, 'realtime gateway closed');
}

/** One connection's limits from the gateway's options and their defaults. */
function connectionLimits(options: RealtimeGatewayOptions): ConnectionLimits & { maxFrameBytes: number } {
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  return {
    maxFrameBytes,
    maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    maxPendingEvents: options.maxPendingEvents ?? DEFAULT_MAX_PENDING_EVENTS,
    inbound: inboundBudgetLimits(
      options.inboundEventsPerSecond ?? DEFAULT_INBOUND_EVENTS_PER_SECOND,
      options.inboundBytesPerSecond ?? DEFAULT_INBOUND_BYTES_PER_SECOND,
      maxFrameBytes,
    ),
  };
}
