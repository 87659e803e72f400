import { megabytes, processTreeMemory } from '../test/helpers/process-memory.js';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';
import { samplePhoto } from '../test/video/video-helpers.js';
import { TEXT_300 } from './speech.js';

/** Requests of one burst, started together and abandoned by the client shortly after. */
const BURST_REQUESTS = 48;
const ABORT_AFTER_MS = 150;
const BURSTS = Number(process.env.SVC_BENCH_BURSTS ?? 10);
/** Time for what the aborted requests started to end before RSS is read. */
const SETTLE_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const PHOTO = samplePhoto().toString('base64');

/** One request the client abandons: speech (whole mp3, streamed PCM, wav) or a streamed video. */
async function abandoned(server: ServerProcess, i: number): Promise<void> {
  const bodies = [
    ['/v1/audio/speech', { input: TEXT_300, response_format: 'mp3' }],
    ['/v1/audio/speech', { input: TEXT_300, response_format: 'pcm', stream: true }],
    ['/v1/audio/speech', { input: `${TEXT_300} ${i}`, response_format: 'wav' }],
    ['/v1/videos/stream', { ref_image: PHOTO, input_tts: { input: TEXT_300.slice(0, 120) } }],
  ] as const;
  const [path, body] = bodies[i % bodies.length]!;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ABORT_AFTER_MS);
  try {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    await res.arrayBuffer();
  } catch {
    // abandoned, as meant
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `npm run bench -- aborted-bursts` (issue 33, "also seen"): does the server's memory keep growing
 * with bursts of requests the client abandons (a leak), or settle (caches and the allocator)? One
 * server process, BURSTS (SVC_BENCH_BURSTS, default 10) bursts of BURST_REQUESTS requests aborted after
 * ABORT_AFTER_MS, the RSS of the process tree, of node alone and the V8 heap read SETTLE_MS after each burst.
 */
export async function benchAbortedBursts(): Promise<Record<string, number | string>> {
  const server = await startServerProcess({
    env: { SVC_RATE_LIMIT_PER_MINUTE: '100000', SVC_RATE_LIMIT_BURST: '1000', SVC_SPEECH_WARM_UP: 'blocking' },
  });
  const results: Record<string, number | string> = {};
  // The V8 heap beside the RSS: a heap that keeps growing is retained JavaScript objects (a leak);
  // a flat heap under a growing RSS is native memory (engines' arenas, the allocator).
  const read = async () => {
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${server.apiKey}` } })).text();
    const gauge = (name: string) => megabytes(Number(new RegExp(`^${name} ([0-9.e+]+)`, 'm').exec(metrics)?.[1] ?? 0));
    const tree = processTreeMemory(server.pid);
    return `${megabytes(tree.rssBytes)} MB (node ${megabytes(tree.processes[0]!.rssBytes)} MB, V8 heap used ${gauge('nodejs_heap_size_used_bytes')} MB, external ${gauge('nodejs_external_memory_bytes')} MB, ${tree.processes.length - 1} helpers)`;
  };
  try {
    // One of each request completed first: what a warm server holds.
    for (let i = 0; i < 4; i++) await abandoned(server, i).catch(() => undefined);
    await sleep(SETTLE_MS);
    results['baseline (warm, idle)'] = await read();
    for (let burst = 1; burst <= BURSTS; burst++) {
      await Promise.all(Array.from({ length: BURST_REQUESTS }, (_, i) => abandoned(server, i)));
      await sleep(SETTLE_MS);
      results[`after burst ${burst}`] = await read();
    }
    await sleep(30_000);
    results['30 s after the last burst'] = await read();
  } finally {
    await server.stop();
  }
  return results;
}
