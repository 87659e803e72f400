import { loadavg } from 'node:os';
import { percentile, postSpeech, round, timedSpeech, type BenchServer } from './harness.js';
import { TEXT_300 } from './speech.js';

/**
 * Time to the first complete `speech.audio.delta` event of `stream_format: "sse"` (issue 18), beside
 * the time to the first byte of the raw pcm stream it wraps, on the same text, interleaved so load
 * changes hit both alike. The event needs its whole first chunk base64-encoded, so it can only
 * trail the pcm stream's first byte by the encoding and framing of one sentence piece.
 */
export async function benchSpeechSse(bench: BenchServer): Promise<Record<string, number | string>> {
  const pcm = { input: TEXT_300, response_format: 'pcm', stream: true };
  const ssePcm = { input: TEXT_300, response_format: 'pcm', stream_format: 'sse' };
  const sseMp3 = { input: TEXT_300, stream_format: 'sse' };
  const mp3 = { input: TEXT_300 };
  for (let i = 0; i < 3; i++) {
    await timedSpeech(bench, pcm);
    await timedFirstEvent(bench, ssePcm);
  }
  const runs = {
    pcm: [] as number[],
    ssePcm: [] as number[],
    sseMp3: [] as number[],
    mp3: [] as number[],
    ssePcmTotal: [] as number[],
    pcmTotal: [] as number[],
  };
  const load = loadavg()[0]!;
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < 30; i++) {
    const raw = await timedSpeech(bench, pcm);
    runs.pcm.push(raw.ttfbMs);
    runs.pcmTotal.push(raw.totalMs);
    const events = await timedFirstEvent(bench, ssePcm);
    runs.ssePcm.push(events.firstEventMs);
    runs.ssePcmTotal.push(events.totalMs);
    runs.sseMp3.push((await timedFirstEvent(bench, sseMp3)).firstEventMs);
    runs.mp3.push((await timedSpeech(bench, mp3)).ttfbMs);
  }
  const cpu = process.cpuUsage(cpuStart);
  const p = (values: number[], q: number) => round(percentile(values, q), 1);
  return {
    'load average (1 min) at start': round(load, 2),
    'pcm stream: first byte p50 / p95 (ms)': `${p(runs.pcm, 50)} / ${p(runs.pcm, 95)}`,
    'sse (pcm): first speech.audio.delta p50 / p95 (ms)': `${p(runs.ssePcm, 50)} / ${p(runs.ssePcm, 95)}`,
    'sse / pcm first audio, ratio of p50': round(percentile(runs.ssePcm, 50) / percentile(runs.pcm, 50), 3),
    'sse (mp3): first delta p50 / p95 (ms)': `${p(runs.sseMp3, 50)} / ${p(runs.sseMp3, 95)}`,
    'mp3 (audio): first byte p50 / p95 (ms)': `${p(runs.mp3, 50)} / ${p(runs.mp3, 95)}`,
    'whole response, pcm stream vs sse (pcm), p50 (ms)': `${p(runs.pcmTotal, 50)} / ${p(runs.ssePcmTotal, 50)}`,
    'CPU of this process per request, client included (ms)': round((cpu.user + cpu.system) / 1000 / 120, 1),
  };
}

/** Time to the first complete SSE event (up to its blank line) and to the end of the stream. */
async function timedFirstEvent(
  ctx: { baseUrl: string; apiKey: string },
  body: Record<string, unknown>,
): Promise<{ firstEventMs: number; totalMs: number }> {
  const started = performance.now();
  const reader = (await postSpeech(ctx, body)).body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let firstEventMs = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!firstEventMs) {
      text += decoder.decode(value, { stream: true });
      if (text.includes('\n\n')) {
        if (!text.startsWith('data: {"type":"speech.audio.delta"')) throw new Error(`unexpected first event: ${text.slice(0, 80)}`);
        firstEventMs = performance.now() - started;
      }
    }
  }
  return { firstEventMs, totalMs: performance.now() - started };
}
