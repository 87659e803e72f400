import { readFileSync } from 'node:fs';
import { librivoxSentences } from '../test/helpers/librivox.js';
import { audioOf, sendRecording, WyomingClient } from '../test/helpers/wyoming-client.js';
import { cpuMs, percentile, round, startBenchServer, timedSpeech } from './harness.js';
import { TEXT_300 } from './speech.js';

const ROUNDS = 10;
/** A language model's reply arriving word by word: 30 ms a word is about 45 tokens a second. */
const WORD_INTERVAL_MS = 30;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const p50p95 = (xs: number[], digits = 0) => `${round(percentile(xs, 50), digits)} / ${round(percentile(xs, 95), digits)}`;

/** Time from `send()` to the first `audio-chunk`, and to the end (`audio-stop`, or `synthesize-stopped` for a stream). */
async function firstAudio(
  port: number,
  send: (c: WyomingClient, started: () => void) => Promise<void>,
  end: string,
): Promise<{ firstMs: number; totalMs: number; audioSeconds: number }> {
  const c = await WyomingClient.connect(port);
  let t0 = 0;
  const sending = send(c, () => (t0 = performance.now()));
  const first = await c.until('audio-chunk', 60_000);
  const done = await c.until(end, 60_000);
  await sending;
  await c.close();
  return { firstMs: first.at - t0, totalMs: done.at - t0, audioSeconds: audioOf(c.events).length / (first.data.rate as number) };
}

/**
 * `npm run bench -- wyoming`: the Wyoming port on its own server (SVC_WYOMING_PORT=0).
 * - Time to first audio of `synthesize` (the whole 300-character text at once) and of the streaming
 *   form fed word by word like a language model's reply, measured from its first chunk; beside it
 *   the same paced reply sent as one `synthesize` once it has ended (what a client without
 *   streaming does).
 * - Transcription of the five LibriVox sentences: `audio-stop` -> `transcript` when the audio comes
 *   at real-time pace (what a voice assistant waits for), and the time per second of audio when the
 *   whole recording is sent at once.
 */
export async function benchWyoming(): Promise<Record<string, number | string>> {
  const bench = await startBenchServer({ SVC_WYOMING_PORT: '0' });
  const out: Record<string, number | string> = { 'load average at start (1/5/15 min)': loadAverage() };
  try {
    const port = bench.server.wyoming!.server.address.port;
    const words = TEXT_300.split(/(?<= )/);
    const oneShot = (c: WyomingClient, started: () => void) => {
      started();
      c.send('synthesize', { text: TEXT_300 });
      return Promise.resolve();
    };
    const streamed = async (c: WyomingClient, started: () => void) => {
      c.send('synthesize-start', {});
      for (const [i, word] of words.entries()) {
        if (i === 0) started();
        else await sleep(WORD_INTERVAL_MS);
        c.send('synthesize-chunk', { text: word });
      }
      c.send('synthesize', { text: TEXT_300 });
      c.send('synthesize-stop');
    };
    const waitThenSynthesize = async (c: WyomingClient, started: () => void) => {
      started();
      await sleep(WORD_INTERVAL_MS * (words.length - 1));
      c.send('synthesize', { text: TEXT_300 });
    };
    const wholeInOneChunk = (c: WyomingClient, started: () => void) => {
      c.send('synthesize-start', {});
      started();
      c.send('synthesize-chunk', { text: TEXT_300 });
      c.send('synthesize-stop');
      return Promise.resolve();
    };
    for (let i = 0; i < 3; i++) await firstAudio(port, oneShot, 'audio-stop'); // warm the engines
    // CPU of one whole request (server and this client: one process), steadier than wall time on a shared machine.
    const cpuBefore = cpuMs().own;
    let spoken = 0;
    for (let i = 0; i < ROUNDS; i++) spoken = (await firstAudio(port, oneShot, 'audio-stop')).audioSeconds;
    out[`synthesize (300 chars, ${round(spoken, 1)} s of audio): CPU per request (ms, server + client process)`] = round(
      (cpuMs().own - cpuBefore) / ROUNDS,
      0,
    );

    const runs = {
      oneShot: [] as number[],
      oneShotTotal: [] as number[],
      rest: [] as number[],
      streamed: [] as number[],
      waited: [] as number[],
      oneChunk: [] as number[],
    };
    for (let r = 0; r < ROUNDS; r++) {
      const a = await firstAudio(port, oneShot, 'audio-stop');
      runs.oneShot.push(a.firstMs);
      runs.oneShotTotal.push(a.totalMs);
      // The same text through the REST API's streamed PCM, in the same round: the transport's own cost under the same load.
      runs.rest.push((await timedSpeech(bench, { input: TEXT_300, response_format: 'pcm', stream: true })).ttfbMs);
      runs.streamed.push((await firstAudio(port, streamed, 'synthesize-stopped')).firstMs);
      runs.waited.push((await firstAudio(port, waitThenSynthesize, 'audio-stop')).firstMs);
      runs.oneChunk.push((await firstAudio(port, wholeInOneChunk, 'synthesize-stopped')).firstMs);
    }
    const replyMs = WORD_INTERVAL_MS * (words.length - 1);
    out['synthesize (300 chars at once): first audio p50 / p95 (ms)'] = p50p95(runs.oneShot);
    out['synthesize (300 chars at once): last audio p50 / p95 (ms)'] = p50p95(runs.oneShotTotal);
    out['the same text through POST /v1/audio/speech (stream, pcm): first byte p50 / p95 (ms)'] = p50p95(runs.rest);
    out['synthesize-start + the same text in one chunk + stop: first audio p50 / p95 (ms)'] = p50p95(runs.oneChunk);
    out[
      `reply streamed word by word (${words.length} words, ${WORD_INTERVAL_MS} ms apart, ${replyMs} ms in all): first audio after its first chunk, streaming p50 / p95 (ms)`
    ] = p50p95(runs.streamed);
    out['the same reply sent as one synthesize once it has ended: first audio after its first word p50 / p95 (ms)'] = p50p95(runs.waited);
    out['streaming: first audio sooner by (p50 ratio)'] = `${round(percentile(runs.waited, 50) / percentile(runs.streamed, 50), 1)}x`;

    // Transcription: real-time pace (what a voice assistant waits for after the user stops) and all at once.
    const clips = librivoxSentences();
    const afterStop: number[] = [];
    const perSecond: number[] = [];
    const cpuStart = cpuMs();
    let audioSeconds = 0;
    for (let r = 0; r < 2; r++) {
      for (const clip of clips) {
        const pcm = clip.wav.subarray(clip.wav.indexOf('data') + 8);
        const paced = await WyomingClient.connect(port);
        paced.send('transcribe', { language: 'en' });
        paced.send('audio-start', { rate: 16000, width: 2, channels: 1 });
        const chunk = 1600 * 2; // 100 ms
        const started = performance.now();
        for (let i = 0, n = 0; i < pcm.length; i += chunk, n++) {
          paced.send('audio-chunk', { rate: 16000, width: 2, channels: 1 }, pcm.subarray(i, i + chunk));
          const due = started + (n + 1) * 100 - performance.now();
          if (due > 0) await sleep(due);
        }
        const stopAt = performance.now();
        paced.send('audio-stop');
        afterStop.push((await paced.until('transcript', 60_000)).at - stopAt);
        await paced.close();

        const whole = await WyomingClient.connect(port);
        const t0 = performance.now();
        whole.send('transcribe', { language: 'en' });
        sendRecording(whole, pcm);
        const done = await whole.until('transcript', 60_000);
        perSecond.push((done.at - t0) / clip.seconds);
        await whole.close();
        audioSeconds += 2 * clip.seconds;
      }
    }
    out['transcription at real-time pace (100 ms chunks): audio-stop -> transcript p50 / p95 (ms)'] = p50p95(afterStop);
    out['transcription sent at once: ms per second of audio p50 / p95 (3-7 s clips)'] = p50p95(perSecond);
    const cpuEnd = cpuMs();
    out['transcription: CPU per second of audio, node / decoders (ms)'] =
      `${round((cpuEnd.own - cpuStart.own) / audioSeconds, 0)} / ${round((cpuEnd.decoders - cpuStart.decoders) / audioSeconds, 0)}`;
    out['load average at end (1/5/15 min)'] = loadAverage();
  } finally {
    await bench.close();
  }
  return out;
}
