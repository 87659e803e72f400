import { EspeakPhonemizer } from '@svc/adapters-speech-synthesis';
import { percentile, round } from './harness.js';
import { TEXT_300 } from './speech.js';

/**
 * The espeak-ng phonemizer pool in front of the neural voices (SVC_PHONEMIZER_WORKERS): sentences
 * per second when many requests phonemize at once, latency per sentence, and CPU time per sentence
 * (process CPU, worker threads included: the load-independent figure). Voice en-us, the 300-character
 * speech text cut into its sentences, 32 requests in flight.
 */
export async function benchPhonemizer(): Promise<Record<string, number | string>> {
  const sentences = TEXT_300.match(/[^.!?]+[.!?]/g)!.map((s) => s.trim());
  const out: Record<string, number | string> = { 'cores (os.availableParallelism)': (await import('node:os')).availableParallelism() };
  for (const workers of [1, 2, 4]) {
    const phonemizer = await EspeakPhonemizer.create(workers);
    try {
      // Warm every worker's voice (the first use of a voice costs several hundred ms).
      await Promise.all(Array.from({ length: workers * 2 }, () => phonemizer.phonemize(sentences[0]!, 'en-us')));
      const total = 320;
      const latencies: number[] = [];
      const cpu = process.cpuUsage();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < total) {
            const text = sentences[next++ % sentences.length]!;
            const t0 = performance.now();
            await phonemizer.phonemize(text, 'en-us');
            latencies.push(performance.now() - t0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      out[`${workers} worker(s): sentences/s`] = round(total / seconds, 1);
      out[`${workers} worker(s): latency p50 / p95 (ms)`] =
        `${round(percentile(latencies, 50), 1)} / ${round(percentile(latencies, 95), 1)}`;
      out[`${workers} worker(s): CPU ms per sentence`] = round((used.user + used.system) / 1000 / total, 2);
    } finally {
      await phonemizer.release();
    }
  }
  return out;
}
