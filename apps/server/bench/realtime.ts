import WebSocket from 'ws';
import { percentile, round } from './harness.js';

type Event = Record<string, any> & { type: string };

/** A bare client: resolves `wait(type)` promises as events arrive. */
class BenchClient {
  private readonly waiting = new Map<string, ((e: Event) => void)[]>();
  counts = new Map<string, number>();
  onEvent: ((e: Event) => void) | null = null;
  readonly closed: Promise<number>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as Event;
      this.counts.set(event.type, (this.counts.get(event.type) ?? 0) + 1);
      this.onEvent?.(event);
      const list = this.waiting.get(event.type);
      if (list?.length) list.shift()!(event);
    });
    ws.on('error', () => undefined);
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  }

  static async open(wsUrl: string, apiKey: string, session: Record<string, unknown> = {}): Promise<BenchClient> {
    const client = new BenchClient(
      new WebSocket(`${wsUrl}/v1/realtime`, { headers: { Authorization: `Bearer ${apiKey}` }, perMessageDeflate: false }),
    );
    await new Promise<void>((resolve, reject) => {
      client.ws.once('open', () => resolve());
      client.ws.once('error', reject);
    });
    const created = client.wait('session.created');
    client.send({
      type: 'session.update',
      session: { model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } }, ...session },
    });
    await Promise.race([created, client.closed.then((code) => Promise.reject(new Error(`closed ${code} before session.created`)))]);
    return client;
  }

  wait(type: string): Promise<Event> {
    return new Promise((resolve) => {
      const list = this.waiting.get(type) ?? [];
      list.push(resolve);
      this.waiting.set(type, list);
    });
  }

  send(event: unknown): void {
    this.ws.send(JSON.stringify(event));
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN) {
      this.ws.close();
      await this.closed;
    }
  }
}

/** Client events answered per second through one session (conversation.item.create, one answer each). */
async function eventsPerSecond(wsUrl: string, apiKey: string, count: number): Promise<number> {
  const client = await BenchClient.open(wsUrl, apiKey, { truncation: 'disabled' });
  let answered = 0;
  const done = new Promise<void>((resolve, reject) => {
    client.onEvent = (e) => {
      if (e.type === 'conversation.item.added' || e.type === 'error') answered++;
      if (answered === count) resolve();
    };
    // A server that closes the session (e.g. its inbound budget) ends the measure instead of hanging it.
    void client.closed.then((code) => reject(new Error(`the session closed (${code}) after ${answered} of ${count} answers`)));
  });
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `message ${i}` }] },
    });
  }
  await done;
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  return count / seconds;
}

/** Milliseconds from sending response.create to the first response.output_text.delta. */
async function firstDeltaLatencies(wsUrl: string, apiKey: string, runs: number): Promise<number[]> {
  const client = await BenchClient.open(wsUrl, apiKey);
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What time is it?' }] },
  });
  await client.wait('conversation.item.added');
  const latencies: number[] = [];
  for (let i = 0; i < runs; i++) {
    const delta = client.wait('response.output_text.delta');
    const done = client.wait('response.done');
    const started = performance.now();
    client.send({ type: 'response.create' });
    await delta;
    latencies.push(performance.now() - started);
    await done;
  }
  await client.close();
  return latencies;
}

function heapMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** Opens `count` configured idle sessions; reports how many were held and the memory they took. */
async function idleSessions(wsUrl: string, apiKey: string, count: number) {
  const before = heapMb();
  const rssBefore = process.memoryUsage().rss / 1024 / 1024;
  const clients: BenchClient[] = [];
  const failures: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.allSettled(Array.from({ length: Math.min(50, count - i) }, () => BenchClient.open(wsUrl, apiKey)));
    for (const r of batch) {
      if (r.status === 'fulfilled') clients.push(r.value);
      else failures.push(String(r.reason));
    }
  }
  await new Promise((r) => setTimeout(r, 1000));
  const held = clients.filter((c) => c.ws.readyState === WebSocket.OPEN).length;
  const after = heapMb();
  const rssAfter = process.memoryUsage().rss / 1024 / 1024;
  await Promise.all(clients.map((c) => c.close()));
  return {
    held,
    failures: failures.length,
    heapKbPerSession: ((after - before) * 1024) / Math.max(1, clients.length),
    rssKbPerSession: ((rssAfter - rssBefore) * 1024) / Math.max(1, clients.length),
  };
}

/**
 * Realtime numbers of issue 4: event throughput through one session, time to the first text delta
 * with the embedded model, memory per idle session and concurrent idle sessions (target 1,000;
 * the bench server raises SVC_REALTIME_MAX_SESSIONS[_PER_KEY] to 2,000). The clients run in the
 * same process as the server, so memory per session includes both ends of each WebSocket.
 */
export async function benchRealtime(ctx: { wsUrl: string; apiKey: string }): Promise<Record<string, number | string>> {
  const { wsUrl, apiKey } = ctx;
  await firstDeltaLatencies(wsUrl, apiKey, 5); // warm-up
  const eps = await eventsPerSecond(wsUrl, apiKey, 20_000);
  const latencies = await firstDeltaLatencies(wsUrl, apiKey, 200);
  const idle = await idleSessions(wsUrl, apiKey, 1000);
  return {
    'events/s through one session (conversation.item.create -> item.added, 20,000 events)': round(eps, 0),
    'response.create -> first text delta p50 (ms, embedded model)': round(percentile(latencies, 50), 2),
    'response.create -> first text delta p95 (ms, embedded model)': round(percentile(latencies, 95), 2),
    'concurrent idle sessions held (of 1,000 opened)': idle.held,
    'idle session open failures': idle.failures,
    'heap per idle session (KiB, client + server in one process)': round(idle.heapKbPerSession, 1),
    'RSS per idle session (KiB, client + server in one process)': round(idle.rssKbPerSession, 1),
  };
}
