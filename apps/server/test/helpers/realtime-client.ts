import { basename } from 'node:path';
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

/** A mocha test, where a client was opened and where an event arrived (null: outside any test, in a hook). */
interface TestRef {
  /** Tells two tests of the same title apart. */
  serial: number;
  file: string;
  title: string;
}

/** A protocol violation one client saw, with what attributes it. */
interface Violation {
  problem: string;
  /** The client: its number in this process and its path. */
  client: string;
  /** The test that opened the client, and the one running when the event came. */
  openedIn: TestRef | null;
  /** The file the client belongs to: its test's, or (opened in a hook) the test file that opened it, when known. */
  file: string | null;
  arrivedIn: TestRef | null;
  /** The test had already closed the client (the event was in flight). */
  afterClose: boolean;
}

/**
 * Violations not yet charged to a test. Several test files share one mocha process, and a client a
 * test left open can receive events after that test's check (or after its file ended): such a
 * violation stays here, attributed, until the end of the run, instead of failing whichever test
 * checks next.
 */
const unchecked: Violation[] = [];
/** The files that check for violations (call `takeViolations`): the ones whose leftovers the end of the run reports. */
const checkingFiles = new Set<string>();
let running: TestRef | null = null;
let testSerial = 0;
let clientSerial = 0;

// Root hooks (this module is first imported while mocha loads a test file, at its top level, so
// they are registered on the root suite, once): which test is running, and a last check at the end.
if (typeof beforeEach === 'function' && typeof afterEach === 'function' && typeof after === 'function') {
  beforeEach(function () {
    const test = this.currentTest;
    running = { serial: ++testSerial, file: test?.file ?? '', title: test?.title ?? '' };
  });
  afterEach(() => {
    running = null;
  });
  after(() => {
    const stray = takeStrayViolations();
    if (stray.length > 0) throw new Error(`protocol violations no test was charged with:\n  ${stray.join('\n  ')}`);
  });
}

/**
 * The violations charged to the test running now, taken (its afterEach checks them): those of the
 * clients it opened, and those that arrived during it on a client opened in a hook (outside any
 * test). A violation on a client another test opened (and left open, or closed with the event in
 * flight) is not this test's: it is kept for the end of the run, naming the test that opened it.
 */
export function takeViolations(): string[] {
  const now = running;
  if (now) checkingFiles.add(now.file);
  const charged = (v: Violation) =>
    v.openedIn ? v.openedIn.serial === now?.serial : now ? v.arrivedIn?.serial === now.serial : v.arrivedIn === null;
  return drain(charged);
}

/**
 * The violations no test was charged with, of the files that check for them (or of a client whose
 * file is unknown), taken: the root `after` hook fails the run with them; a test of this module
 * reads them.
 */
export function takeStrayViolations(): string[] {
  return drain((v) => v.file === null || checkingFiles.has(v.file));
}

function drain(charged: (v: Violation) => boolean): string[] {
  const taken: string[] = [];
  for (let i = 0; i < unchecked.length;) {
    const v = unchecked[i]!;
    if (!charged(v)) {
      i++;
      continue;
    }
    unchecked.splice(i, 1);
    taken.push(describeViolation(v));
  }
  return taken;
}

function describeViolation(v: Violation): string {
  const where = (t: TestRef | null) =>
    t ? `"${t.title}" (${basename(t.file)})` : `a hook outside any test${v.file ? ` (${basename(v.file)})` : ''}`;
  const closed = v.afterClose ? ', after the test closed it' : '';
  const arrived = v.arrivedIn?.serial !== v.openedIn?.serial ? `, arrived during ${where(v.arrivedIn)}` : '';
  return `${v.problem} [client ${v.client}, opened in ${where(v.openedIn)}${arrived}${closed}]`;
}

/** The compiled test file on the stack (a client opened in a before/after hook has no running test to say it). */
function testFileOnStack(): string | null {
  const frame = /(?:file:\/\/)?(\/[^\s():]+\.test\.js)/.exec(new Error().stack ?? '');
  return frame?.[1] ?? null;
}

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
  /** The protocol violations this client saw (also charged to its test: `takeViolations`). */
  readonly violations: string[] = [];
  closeInfo: { code: number; reason: string } | null = null;
  /** The test asked to close it (events may still be in flight). */
  private closing = false;
  /** Names it in the violations it saw: its number in this process and its path. */
  readonly label: string;
  private readonly openedIn = running;
  private readonly file = running?.file ?? testFileOnStack();
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
    const url = new URL(ws.url);
    this.label = `#${++clientSerial} ${url.pathname}${url.search}`;
    ws.on('message', (data, isBinary) => {
      if (isBinary) this.violation('binary frame from server');
      const event = JSON.parse(data.toString()) as ServerEvent;
      if (typeof event.event_id !== 'string' || event.event_id === '') this.violation(`${event.type} without string event_id`);
      for (const problem of gaSchemaViolations(event)) this.violation(`GA schema: ${problem}`);
      if (typeof event.type !== 'string') this.violation('event without type');
      if (NEVER_EMITTED.some((p) => p.test(event.type))) this.violation(`never-emitted event ${event.type}`);
      this.events.push(event);
      this.wake();
    });
  }

  private violation(problem: string): void {
    this.violations.push(problem);
    unchecked.push({
      problem,
      client: this.label,
      openedIn: this.openedIn,
      file: this.file,
      arrivedIn: running,
      afterClose: this.closing || this.closeInfo !== null,
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
    this.closing = true;
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
