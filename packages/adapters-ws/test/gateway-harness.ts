import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InvalidApiKeyError,
  MintClientSecret,
  RealtimeSessionEngine,
  RedeemClientSecret,
  silentLogger,
  type Clock,
  type ClientSecretRecord,
  type ClientSecretRepository,
  type LanguageModel,
  type Logger,
  type Principal,
} from '@svc/core';
import WebSocket from 'ws';
import { attachRealtimeGateway, type RealtimeGateway, type RealtimeGatewayDeps, type RealtimeGatewayOptions } from '../src/index.js';

export const API_KEYS: Record<string, Principal> = {
  'svc-key-a': { apiKeyId: 'key_a', name: 'a' },
  'svc-key-b': { apiKeyId: 'key_b', name: 'b' },
};

class MapSecrets implements ClientSecretRepository {
  rows: ClientSecretRecord[] = [];
  async insert(r: ClientSecretRecord) {
    this.rows.push(r);
  }
  async findBySecretHash(h: string) {
    return this.rows.find((r) => r.secretHash === h) ?? null;
  }
  async deleteExpired() {
    return 0;
  }
}

const echoModel: LanguageModel = {
  id: 'echo',
  contextWindowTokens: 10_000,
  async *stream(request) {
    const last = request.messages[request.messages.length - 1];
    yield { type: 'text', delta: `echo: ${last?.content ?? ''}` };
  },
};

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export interface GatewayHarness {
  url: string;
  server: Server;
  gateway: RealtimeGateway;
  mint(apiKey: string, seconds?: number): Promise<string>;
  /** The last minted secret's session id. */
  lastSessionId: string | null;
  close(): Promise<void>;
}

let counter = 0;
const ids = {
  id: (p: string) => `${p}${(++counter).toString(36)}${randomBytes(4).toString('hex')}`,
  secret: (p: string) => `${p}${randomBytes(16).toString('hex')}`,
};
const hasher = { sha256: (d: string | Uint8Array) => createHash('sha256').update(d).digest('hex') };

/** A real HTTP server with the gateway and real engines (echo language model). */
export async function startGateway(
  options: Partial<RealtimeGatewayOptions> = {},
  createSession?: RealtimeGatewayDeps['createSession'],
  clock: Clock = realClock,
  joinCall?: RealtimeGatewayDeps['joinCall'],
  logger?: Logger,
): Promise<GatewayHarness> {
  const secrets = new MapSecrets();
  const mint = new MintClientSecret(secrets, ids, hasher, clock);
  const redeem = new RedeemClientSecret(secrets, hasher, clock);
  const server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  const gateway = attachRealtimeGateway(
    server,
    {
      authenticateApiKey: async (secret) => {
        const p = API_KEYS[secret];
        if (!p) throw new InvalidApiKeyError();
        return p;
      },
      redeemClientSecret: (secret) => redeem.execute(secret),
      ...(joinCall ? { joinCall } : {}),
      ...(logger ? { logger } : {}),
      createSession:
        createSession ??
        ((ctx) =>
          new RealtimeSessionEngine(
            {
              clock,
              ids,
              logger: silentLogger,
              languageModel: echoModel,
              voices: { exists: async () => false },
              quota: { consume: async () => ({ allowed: true }) },
            },
            { principal: ctx.principal, urlModel: ctx.urlModel, sessionId: ctx.sessionId, maxDurationSec: 600 },
            ctx.output,
          )),
    },
    { maxSessions: 100, maxSessionsPerKey: 100, ...options },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const harness: GatewayHarness = {
    url: `ws://127.0.0.1:${port}/v1/realtime`,
    server,
    gateway,
    lastSessionId: null,
    async mint(apiKey, seconds = 600) {
      const minted = await mint.execute(API_KEYS[apiKey]!, { expires_after: { seconds } });
      this.lastSessionId = minted.session.id;
      return minted.value;
    },
    async close() {
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return harness;
}

/** A client that records every event and the close. */
export class TestClient {
  readonly events: Record<string, any>[] = [];
  closeInfo: { code: number; reason: string } | null = null;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        resolve(this.closeInfo);
        this.notify();
      }),
    );
    ws.on('message', (data) => {
      this.events.push(JSON.parse(data.toString()));
      this.notify();
    });
    ws.on('error', () => undefined);
  }

  static connect(url: string, options: { apiKey?: string; protocols?: string[]; headers?: Record<string, string> } = {}): TestClient {
    const headers = { ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers };
    return new TestClient(new WebSocket(url, options.protocols ?? [], { headers }));
  }

  /** Sends now, or as soon as the socket is open. */
  send(event: unknown): void {
    const text = typeof event === 'string' ? event : JSON.stringify(event);
    if (this.ws.readyState === WebSocket.CONNECTING) this.ws.once('open', () => this.ws.send(text));
    else this.ws.send(text);
  }

  /** Resolves with the first event of that type (not yet consumed by an earlier wait). */
  async next(type: string, timeoutMs = 5000): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.events.findIndex((e) => e.type === type && !e.__seen);
      if (index >= 0) {
        Object.defineProperty(this.events[index], '__seen', { value: true, enumerable: false });
        return this.events[index]!;
      }
      if (this.closeInfo) throw new Error(`closed (${this.closeInfo.code}) before ${type}; got ${this.types().join(', ')}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${type}; got ${this.types().join(', ')}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
