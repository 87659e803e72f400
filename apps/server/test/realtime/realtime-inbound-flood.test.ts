// @test-tier serial: measures the server's CPU share under a flood
import { expect } from 'chai';
import { INBOUND_BURST_SECONDS } from '@svc/core';
import { DEFAULT_INBOUND_EVENTS_PER_SECOND } from '@svc/adapters-ws';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { FloodOptions, FloodResult } from '../helpers/flood-worker.js';
import { openSession, RealtimeClient, sleep, userText } from '../helpers/realtime-client.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/** CPU time (user + system) the process `pid` has used, in ms (Linux /proc). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
}

/** How long a flood may last if the server lets it (the measurement: 5 s). */
const FLOOD_SECONDS = 5;
/**
 * The most a /healthz poll, or a well-behaved session's round trip, may take while a client floods
 * beside it. Measured on the shared 2-core machine at load average 11-15 (each runnable process
 * gets a fifth of a core): without the budget the poller saw 3.8-4.7 s here (the issue: max 15 s)
 * and the server kept reading the flood for all of its 5 s; with it the worst poll was 0.16-0.34 s
 * (1.56 s once at load 15, with the server process idle in that window: the machine, not the
 * server). 2 s stays clear of that load and below what a stall gives.
 */
const MAX_LATENCY_MS = 2000;

function runFlood(options: FloodOptions): Promise<FloodResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../helpers/flood-worker.js', import.meta.url), { workerData: options });
    worker.once('message', (result: FloodResult) => {
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

interface Sampler {
  stop(): Promise<number[]>;
}

/** Runs `probe` every `everyMs` (one at a time, the next once the last answered): each latency. */
function sample(everyMs: number, probe: () => Promise<number>): Sampler {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const ms = await probe();
      latencies.push(ms);
      await sleep(Math.max(0, everyMs - ms));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/** GET /healthz every 50 ms: each latency (a failed poll counts as never answered). */
function pollHealth(url: string): Sampler {
  return sample(50, async () => {
    const started = performance.now();
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(30_000) }).then(
      async (res) => (await res.arrayBuffer(), res.status === 200),
      () => false,
    );
    return ok ? performance.now() - started : Infinity;
  });
}

/** A well-behaved session: one conversation.item.retrieve every 100 ms, each answer timed. */
function pingSession(client: RealtimeClient, itemId: string): Sampler {
  return sample(100, async () => {
    const started = performance.now();
    client.send({ type: 'conversation.item.retrieve', item_id: itemId });
    const event = await client.next(30_000);
    if (event.type !== 'conversation.item.retrieved') throw new Error(`the calm session got ${JSON.stringify(event).slice(0, 200)}`);
    return performance.now() - started;
  });
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;
const summary = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(0)} ms, p99 ${percentile(values, 99).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms (${values.length} samples)`;

/**
 * Issue 17, defect 1: one realtime client sending frames at full speed (invalid JSON, binary, or
 * valid cheap events) must not stall the server: every inbound frame counts against the
 * connection's budget, and past it the client gets one `error` (rate_limit_exceeded) and close 1008.
 */
describe('realtime inbound budget: a flooding client is closed, and HTTP and other sessions stay responsive (real server process)', function () {
  this.timeout(180_000);
  let server: ServerProcess;
  before(async () => {
    // The floods below come one after another from the same key: that key's cooldown (tested
    // below) would hold back the next test's calm session.
    server = await startServerProcess({ env: { SVC_REALTIME_FLOOD_COOLDOWN_SEC: '0' } });
  });
  after(async () => server?.stop());

  const floods: Array<[string, string | Uint8Array]> = [
    ['the invalid-JSON text frame {bad', '{bad'],
    ['binary frames', new Uint8Array([1, 2, 3, 4])],
    ['valid cheap events (retrieve of an unknown item)', JSON.stringify({ type: 'conversation.item.retrieve', item_id: 'item_unknown' })],
  ];

  for (const [what, frame] of floods) {
    it(`${what} at full speed: one error, close 1008; /healthz and a calm session keep answering`, async () => {
      const { client: calm } = await openSession(server.wsUrl, server.apiKey);
      calm.send({ type: 'conversation.item.create', item: userText('still here', 'item_calm') });
      expect((await calm.next(10_000)).type).to.equal('conversation.item.added');
      const quiet = pollHealth(server.url);
      await sleep(1000);
      const baseline = await quiet.stop();

      const poller = pollHealth(server.url);
      const pinger = pingSession(calm, 'item_calm');
      const cpuBefore = cpuMs(server.pid);
      const started = performance.now();
      const result = await runFlood({ wsUrl: server.wsUrl, apiKey: server.apiKey, frame, seconds: FLOOD_SECONDS });
      // The server must not still be catching up after the flood ended.
      await sleep(1000);
      const cpuShare = (cpuMs(server.pid) - cpuBefore) / (performance.now() - started);
      const health = await poller.stop();
      const calmRoundTrips = await pinger.stop();
      process.stdout.write(
        `      (${result.sent} frames sent, closed after ${result.closedAfterMs} ms with ${JSON.stringify(result.close)}; errors ${JSON.stringify(result.errors)};\n` +
          `       /healthz idle ${summary(baseline)}; during the flood ${summary(health)}; calm session ${summary(calmRoundTrips)};\n` +
          `       server CPU ${(cpuShare * 100).toFixed(0)} % of a core over the flood and the second after it; load ${loadAverage()})\n`,
      );

      expect(result.close, 'the flooder is closed by the server').to.not.equal(null);
      expect(result.close!.code).to.equal(1008);
      expect(result.close!.reason).to.match(/rate|budget/i);
      expect(result.errors.rate_limit_exceeded).to.equal(1, 'exactly one error says why');
      expect(Math.max(...health), `/healthz during the flood: ${summary(health)}`).to.be.below(MAX_LATENCY_MS);
      expect(Math.max(...calmRoundTrips), `calm session: ${summary(calmRoundTrips)}`).to.be.below(MAX_LATENCY_MS);
      expect(calm.closeInfo, 'the calm session is still open').to.equal(null);
      // The server handled at most the budget's burst (1000 frames) plus what the budget refilled
      // (200 a second) until it closed the flooder, not the flood. A loaded CI runner read the
      // burst in 1.07 s and answered 1,014 frames, past a bound that left the refill out.
      const answered = Object.values(result.errors).reduce((n, k) => n + k, 0) + result.otherEvents;
      const budgeted = DEFAULT_INBOUND_EVENTS_PER_SECOND * (INBOUND_BURST_SECONDS + (result.closedAfterMs ?? 0) / 1000);
      expect(answered, `closed after ${result.closedAfterMs} ms`).to.be.at.most(Math.ceil(budgeted) + 1);
      await calm.close();
    });
  }
});

describe('realtime inbound budget: the key of a flooding session waits before its next one (real server process)', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  const otherKey = `sk-proc-other-${process.pid}`;
  const mint = async () => {
    const minted = await fetch(`${server.url}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    return ((await minted.json()) as { value: string }).value;
  };
  before(async () => {
    const apiKey = `sk-proc-main-${process.pid}`;
    server = await startServerProcess({ apiKey, env: { SVC_API_KEYS: `${apiKey},${otherKey}`, SVC_REALTIME_FLOOD_COOLDOWN_SEC: '3' } });
  });
  after(async () => server?.stop());

  it('after a 1008 for flooding, the same key is refused with 1013 and the seconds left; another key is not; after the cooldown the key is admitted again', async () => {
    const flood = await runFlood({ wsUrl: server.wsUrl, apiKey: server.apiKey, frame: '{bad', seconds: 5 });
    expect(flood.close?.code, 'the flooder is closed').to.equal(1008);
    const closedAt = performance.now();
    // At once, the way a flooding client reconnects.
    const again = RealtimeClient.connect(server.wsUrl, { headers: { Authorization: `Bearer ${server.apiKey}` } });
    const refused = await again.closed;
    expect(refused.code).to.equal(1013);
    expect(refused.reason).to.match(/inbound budget; retry in [1-3] s$/);
    const { created: other, client } = await openSession(server.wsUrl, otherKey);
    expect(other.type, 'another API key is not held back').to.equal('session.created');
    await client.close();
    await sleep(Math.max(0, 3100 - (performance.now() - closedAt)));
    const { created } = await openSession(server.wsUrl, server.apiKey);
    expect(created.type, 'admitted once the cooldown is over').to.equal('session.created');
  });

  it('a flood over an ephemeral key holds back the key that minted it: a freshly minted ephemeral key is refused too (issue 33)', async () => {
    const flood = await runFlood({ wsUrl: server.wsUrl, apiKey: await mint(), frame: '{bad', seconds: 5 });
    expect(flood.close?.code, 'the flooder is closed').to.equal(1008);
    const fresh = RealtimeClient.connect(server.wsUrl, { protocols: ['realtime', `svc-client-secret.${await mint()}`] });
    const refused = await fresh.closed;
    expect(refused.code, 'a fresh ephemeral key of the same key').to.equal(1013);
    expect(refused.reason).to.match(/inbound budget; retry in [1-3] s$/);
    const direct = RealtimeClient.connect(server.wsUrl, { headers: { Authorization: `Bearer ${server.apiKey}` } });
    expect((await direct.closed).code, 'the minting key itself').to.equal(1013);
    const { created, client } = await openSession(server.wsUrl, otherKey);
    expect(created.type, 'another API key is not held back').to.equal('session.created');
    await client.close();
  });
});

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
