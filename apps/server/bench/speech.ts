import { SPEECH_TOKENS, validateSpeechRequest } from '@svc/core';
import { percentile, round, timedSpeech, type BenchServer } from './harness.js';

/** 300 characters of ordinary English in three sentences. */
export const TEXT_300 =
  'The morning train was late again, so Maria walked to the office along the river. ' +
  'She noticed the water was higher than last week, and the ducks had moved to the old bridge. ' +
  'By the time she arrived, her coffee was cold, but the meeting had not started yet, luckily.';

/**
 * `npm run bench -- speech-ttfb`: time to the first PCM byte of a streamed 300-character request
 * (issue 24's figure), 100 requests after a warm-up, and what the first synthesized unit (the
 * first clause) costs the engine alone.
 */
export async function benchSpeechFirstByte(bench: BenchServer): Promise<Record<string, number | string>> {
  const catalog = bench.server.services.get(SPEECH_TOKENS.VoiceCatalog);
  const streamBody = { input: TEXT_300, response_format: 'pcm', stream: true };
  for (let i = 0; i < 5; i++) await timedSpeech(bench, streamBody);
  const ttfb: number[] = [];
  for (let i = 0; i < 100; i++) ttfb.push((await timedSpeech(bench, streamBody)).ttfbMs);
  const voice = catalog.defaultFor('en');
  const engine = catalog.engineFor(voice);
  const clause: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    await engine.synthesize({
      text: FIRST_CLAUSE,
      voice,
      prosody: { rate: 1, pitch: 1, pitchRange: 1, volume: 1 },
      sampleRate: 24000,
      wordTimings: false,
    });
    clause.push(performance.now() - t0);
  }
  return {
    'stream TTFB p50 (ms), 300 chars, pcm': round(percentile(ttfb, 50)),
    'stream TTFB p95 (ms)': round(percentile(ttfb, 95)),
    'stream TTFB min (ms)': round(Math.min(...ttfb)),
    [`engine alone, first clause "${FIRST_CLAUSE}" p50 (ms)`]: round(percentile(clause, 50)),
  };
}

/** What a stream of TEXT_300 synthesizes first (SynthesizeSpeech cuts the first sentence at its first clause). */
const FIRST_CLAUSE = 'The morning train was late again,';

/** Speech numbers of issue 2: time to first byte, real-time factor, server overhead, throughput. */
export async function benchSpeech(bench: BenchServer): Promise<Record<string, number | string>> {
  const synthesize = bench.server.services.get(SPEECH_TOKENS.SynthesizeSpeech);
  const catalog = bench.server.services.get(SPEECH_TOKENS.VoiceCatalog);
  const streamBody = { input: TEXT_300, response_format: 'pcm', stream: true };
  for (let i = 0; i < 3; i++) await timedSpeech(bench, streamBody); // warm the worker pool

  const ttfb: number[] = [];
  for (let i = 0; i < 50; i++) ttfb.push((await timedSpeech(bench, streamBody)).ttfbMs);

  // Real-time factor of a whole mp3 response: wall time / seconds of audio.
  const pcm = await timedSpeech(bench, { input: TEXT_300, response_format: 'pcm' });
  const audioSeconds = pcm.bytes / 2 / 24000;
  const mp3Ms: number[] = [];
  const httpPcmMs: number[] = [];
  for (let i = 0; i < 20; i++) {
    mp3Ms.push((await timedSpeech(bench, { input: TEXT_300 })).totalMs);
    httpPcmMs.push((await timedSpeech(bench, { input: TEXT_300, response_format: 'pcm' })).totalMs);
  }

  // The same work without HTTP: the engine alone, and the whole use case in process.
  const voice = catalog.defaultFor('en');
  const engine = catalog.engineFor(voice);
  const sentences = TEXT_300.match(/[^.!?]+[.!?]/g)!.map((s) => s.trim());
  const engineMs: number[] = [];
  const inProcessMp3Ms: number[] = [];
  for (let i = 0; i < 20; i++) {
    let t0 = performance.now();
    for (const text of sentences) {
      await engine.synthesize({
        text,
        voice,
        prosody: { rate: 1, pitch: 1, pitchRange: 1, volume: 1 },
        sampleRate: 24000,
        wordTimings: false,
      });
    }
    engineMs.push(performance.now() - t0);
    t0 = performance.now();
    const result = await synthesize.execute(validateSpeechRequest({ input: TEXT_300 }), null);
    for await (const _ of result.body);
    inProcessMp3Ms.push(performance.now() - t0);
  }

  // Throughput: 8 clients, each sending requests back to back for a fixed number of rounds.
  const clients = 8;
  const rounds = 5;
  const t0 = performance.now();
  let produced = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let r = 0; r < rounds; r++) produced += (await timedSpeech(bench, { input: TEXT_300, response_format: 'pcm' })).bytes;
    }),
  );
  const wallSeconds = (performance.now() - t0) / 1000;

  const p50 = (xs: number[]) => percentile(xs, 50);
  return {
    'stream TTFB p50 (ms), 300 chars': round(p50(ttfb)),
    'stream TTFB p95 (ms), 300 chars': round(percentile(ttfb, 95)),
    'audio seconds for 300 chars': round(audioSeconds),
    'mp3 full response p50 (ms)': round(p50(mp3Ms)),
    'mp3 real-time factor (wall / audio)': round(p50(mp3Ms) / 1000 / audioSeconds, 4),
    'engine only, in process p50 (ms)': round(p50(engineMs)),
    'use case mp3, in process p50 (ms)': round(p50(inProcessMp3Ms)),
    'HTTP pcm p50 (ms)': round(p50(httpPcmMs)),
    'server overhead: HTTP pcm / engine only': round(p50(httpPcmMs) / p50(engineMs)),
    'server overhead: HTTP mp3 / in-process mp3': round(p50(mp3Ms) / p50(inProcessMp3Ms)),
    '8 clients: requests per second': round((clients * rounds) / wallSeconds),
    '8 clients: audio seconds per wall second': round(produced / 2 / 24000 / wallSeconds),
  };
}
