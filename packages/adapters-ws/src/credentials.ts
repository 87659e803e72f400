import type { IncomingMessage } from 'node:http';

export const CLIENT_SECRET_PROTOCOL_PREFIX = 'svc-client-secret.';
/**
 * The subprotocol OpenAI's browser WebSocket clients put their key in (the `openai` SDK's
 * `OpenAIRealtimeWebSocket`, the agents SDK's WebSocket transport). Only an ephemeral key is
 * taken from it, as from `svc-client-secret.`: an API key never authenticates a browser socket.
 */
export const OPENAI_KEY_PROTOCOL_PREFIX = 'openai-insecure-api-key.';
export const REALTIME_PROTOCOL = 'realtime';

export type Credentials = { kind: 'api_key'; secret: string } | { kind: 'client_secret'; secret: string };

/** Ephemeral keys start with this; anything else in a Bearer header is an API key. */
export const EPHEMERAL_KEY_PREFIX = 'svc-eph-';

/**
 * Server-side clients send `Authorization: Bearer <API key>`; browsers cannot set headers on a
 * WebSocket, so they pass an ephemeral key as the subprotocol `svc-client-secret.<key>`. An
 * ephemeral key in a Bearer header is accepted too (the realtime SDKs send it that way on Node),
 * and in `openai-insecure-api-key.<key>` (they send it that way in a browser).
 */
export function readCredentials(req: IncomingMessage): Credentials | null {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return null;
    return m[1]!.startsWith(EPHEMERAL_KEY_PREFIX) ? { kind: 'client_secret', secret: m[1]! } : { kind: 'api_key', secret: m[1]! };
  }
  for (const protocol of offeredProtocols(req)) {
    if (protocol.startsWith(CLIENT_SECRET_PROTOCOL_PREFIX)) {
      const secret = protocol.slice(CLIENT_SECRET_PROTOCOL_PREFIX.length);
      return secret ? { kind: 'client_secret', secret } : null;
    }
  }
  for (const protocol of offeredProtocols(req)) {
    if (protocol.startsWith(OPENAI_KEY_PROTOCOL_PREFIX)) {
      const secret = protocol.slice(OPENAI_KEY_PROTOCOL_PREFIX.length);
      return secret.startsWith(EPHEMERAL_KEY_PREFIX) ? { kind: 'client_secret', secret } : null;
    }
  }
  return null;
}

export function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headers['sec-websocket-protocol'];
  if (!raw) return [];
  return (Array.isArray(raw) ? raw.join(',') : raw)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/** Echo `realtime` when offered; never echo the protocol that carries the secret. */
export function selectProtocol(protocols: Set<string>): string | false {
  return protocols.has(REALTIME_PROTOCOL) ? REALTIME_PROTOCOL : false;
}
