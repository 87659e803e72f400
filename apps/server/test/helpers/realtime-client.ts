import WebSocket from 'ws';
import { gaSchemaViolations } from './ga-event-schema.js';

/** Events the spec says are never sent; any of them fails the test that received it. */
const NEVER_EMITTED = [
  /^conversation\.created$/,
  /^conversation\.item\.done$/,
  /^rate_limits\.updated$/,
  /^input_audio_buffer\.timeout_triggered$/,
  /^conversation\.item\.input_audio_transcription\.(delta|failed|segment)$/,
  /^output_audio_buffer\./,
  /dtmf/i,
  /^mcp_/,
  /\.mcp_/,
];

export type ServerEvent = Record<string, any> & { type: string; event_id: string };

/** Every protocol violation any client saw (checked after each test). */
export const violations: string[] = [];

export interface ConnectOptions {
  apiKey?: string;
  protocols?: string[];
  headers?: Record<string, string>;
  query?: string;
}

/**
 * A realtime client over a real WebSocket: records events and the close, checks every server
 * event for a string event_id and against the "never emitted" list.
 */
export class RealtimeClient {
  readonly events: ServerEvent[] = [];
  closeInfo: { code: number; reason: string } | null = null;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private consumed = 0;
  private waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString() };
        this.wake();
        resolve(this.closeInfo);
      }),
    );
    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => {
      if (isBinary) violations.push('binary frame from server');
      const event = JSON.parse(data.toString()) as ServerEvent;
      if (typeof event.event_id !== 'string' || event.event_id === '') violations.push(`${event.type} without string event_id`);
      for (const problem of gaSchemaViolations(event)) violations.push(`GA schema: ${problem}`);
      if (typeof event.type !== 'string') violations.push('event without type');
      if (NEVER_EMITTED.some((p) => p.test(event.type))) violations.push(`never-emitted event ${event.type}`);
      this.events.push(event);
      this.wake();
    });
  }

  static connect(wsBase: string, options: ConnectOptions = {}): RealtimeClient {
    const url = `${wsBase}/v1/realtime${options.query ?? ''}`;
    const headers = { ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers };
    return new RealtimeClient(new WebSocket(url, options.protocols ?? [], { headers }));
  }

  send(event: unknown): void {
    const text = typeof event === 'string' ? event : JSON.stringify(event);
    if (this.ws.readyState === WebSocket.CONNECTING) this.ws.once('open', () => this.ws.send(text));
    else if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  /** The next not-yet-consumed event (in order); fails on timeout or close. */
  async next(timeoutMs = 5000): Promise<ServerEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.consumed >= this.events.length) {
      if (this.closeInfo) throw new Error(`connection closed (${this.closeInfo.code} ${this.closeInfo.reason}) while waiting for an event`);
      if (Date.now() > deadline) throw new Error(`no event within ${timeoutMs} ms (seen: ${this.types().join(', ')})`);
      await this.sleepUntilWoken(deadline);
    }
    return this.events[this.consumed++]!;
  }

  /** Consumes events until one of `type` (returning it); the skipped ones are returned too. */
  async until(type: string, timeoutMs = 5000): Promise<{ event: ServerEvent; skipped: ServerEvent[] }> {
    const skipped: ServerEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = await this.next(Math.max(1, deadline - Date.now()));
      if (event.type === type) return { event, skipped };
      skipped.push(event);
    }
  }

  /** Consumes exactly `n` events. */
  async take(n: number, timeoutMs = 5000): Promise<ServerEvent[]> {
    const out: ServerEvent[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(timeoutMs));
    return out;
  }

  /** Asserts nothing more arrives for `ms`. */
  async expectQuiet(ms = 150): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    if (this.events.length > this.consumed) {
      throw new Error(
        `unexpected events: ${this.events
          .slice(this.consumed)
          .map((e) => e.type)
          .join(', ')}`,
      );
    }
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }

  async close(): Promise<void> {
    if (!this.closeInfo) {
      this.ws.close();
      await Promise.race([this.closed, new Promise((r) => setTimeout(r, 2000))]);
    }
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private sleepUntilWoken(deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, Math.max(1, Math.min(200, deadline - Date.now())));
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

/**
 * A started session: connected and configured, session.created consumed (waited for `timeoutMs`:
 * sessions opened together on a loaded machine each start their recognizer meanwhile).
 */
export async function openSession(
  wsBase: string,
  apiKey: string,
  session: Record<string, unknown> = {},
  // Generous: a loaded machine (a fuzzing neighbour, load 40) took over 5 s to create a session;
  // a refusal still ends this at once (next() fails on the close).
  timeoutMs = 30_000,
): Promise<{ client: RealtimeClient; created: ServerEvent }> {
  const client = RealtimeClient.connect(wsBase, { apiKey });
  client.send({
    type: 'session.update',
    session: {
      type: 'realtime',
      model: 'svc-realtime',
      output_modalities: ['text'],
      audio: { input: { turn_detection: null } },
      ...session,
    },
  });
  const created = await client.next(timeoutMs);
  if (created.type !== 'session.created') throw new Error(`expected session.created, got ${JSON.stringify(created)}`);
  return { client, created };
}

export function userText(text: string, id?: string) {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }], ...(id ? { id } : {}) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function pcmBase64(ms: number, rate = 24000, value = 0): string {
  const n = Math.round((ms / 1000) * rate);
  return Buffer.from(new Int16Array(n).fill(value).buffer).toString('base64');
}
