import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CALIBRATION_TEXT, VOICE_PROFILE_VERSION, type VoiceProfile } from '@svc/core';
import { DspVoiceAnalyzer, RubberbandVoiceConverter } from '@svc/adapters-voice-cloning';
import { decodeWithFfmpeg } from '../test/helpers/http.js';
import { REFERENCE_TEXT, shiftSpeaker, speechBytes, wavFile } from '../test/voices/voice-helpers.js';
import { percentile, round, timedSpeech } from './harness.js';
import { TEXT_300 } from './speech.js';

interface Ctx {
  baseUrl: string;
  apiKey: string;
}

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';

/** 10 s of reference speech: the LibriVox reader when pocketsphinx-testdata is installed, else Flite kal16. */
async function tenSecondReference(ctx: Ctx): Promise<{ samples: Int16Array; source: string }> {
  const parts: Int16Array[] = [];
  let source = 'LibriVox human reader (pocketsphinx-testdata)';
  if (existsSync(LIBRIVOX)) {
    for (const f of ['0870', '0880', '0890'].map((n) => join(LIBRIVOX, `sense_and_sensibility_01_austen_64kb-${n}.wav`))) {
      parts.push(await decodeWithFfmpeg(readFileSync(f), 16000));
    }
  } else {
    source = 'Flite kal16';
    parts.push(
      await decodeWithFfmpeg(
        await speechBytes(ctx, ctx.apiKey, { input: `${REFERENCE_TEXT} ${REFERENCE_TEXT}`, voice: 'kal16', response_format: 'wav' }),
        16000,
      ),
    );
  }
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    all.set(p, offset);
    offset += p.length;
  }
  if (all.length < 160000) throw new Error('reference shorter than 10 s');
  return { samples: all.subarray(0, 160000), source };
}

async function register(ctx: Ctx, wav: Uint8Array): Promise<{ ms: number; voice: string }> {
  const started = performance.now();
  const res = await fetch(`${ctx.baseUrl}/v1/audio/voices`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ctx.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ref_audio: Buffer.from(wav).toString('base64') }),
  });
  const body = (await res.json()) as { voice: string };
  if (res.status !== 200) throw new Error(`register returned ${res.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, voice: body.voice };
}

/**
 * Voices numbers of issue 3: analysis time of a 10 s reference, registration over HTTP, and what
 * conversion adds to streamed speech (time to first byte, real-time factor).
 */
export async function benchVoices(ctx: Ctx): Promise<Record<string, number | string>> {
  const reference = await tenSecondReference(ctx);
  const analyzer = new DspVoiceAnalyzer();
  const analysisMs: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    await analyzer.analyze({ samples: reference.samples, sampleRate: 16000 }, null);
    analysisMs.push(performance.now() - t0);
  }

  // Registration end to end: base64 upload, ffmpeg decode, digest, analysis, blob + row. Each clip is
  // slightly different audio (level scaled), so every call is a new voice.
  const registerMs: number[] = [];
  for (let i = 0; i < 8; i++) {
    const scaled = reference.samples.map((s) => Math.round(s * (1 - i * 0.01)));
    registerMs.push((await register(ctx, wavFile(scaled, 16000))).ms);
  }

  // A high voice far from every preset (pitch + formants raised 40 %), so conversion does real work.
  const high = await shiftSpeaker(await speechBytes(ctx, ctx.apiKey, { input: REFERENCE_TEXT, voice: 'slt', response_format: 'wav' }), 1.4);
  const { voice } = await register(ctx, high);
  const presetBody = { input: TEXT_300, voice: 'slt', response_format: 'pcm', stream: true };
  const clonedBody = { input: TEXT_300, voice, response_format: 'pcm', stream: true };
  for (let i = 0; i < 3; i++) {
    await timedSpeech(ctx, presetBody);
    await timedSpeech(ctx, clonedBody);
  }
  const preset: Array<{ ttfbMs: number; totalMs: number; bytes: number }> = [];
  const cloned: typeof preset = [];
  for (let i = 0; i < 30; i++) {
    preset.push(await timedSpeech(ctx, presetBody));
    cloned.push(await timedSpeech(ctx, clonedBody));
  }
  const inlineTtfb: number[] = [];
  for (let i = 0; i < 5; i++) {
    inlineTtfb.push((await timedSpeech(ctx, { ...clonedBody, voice: undefined, ref_audio: high.toString('base64') })).ttfbMs);
  }
  const audioSeconds = cloned[0]!.bytes / 2 / 24000;
  const p50 = (xs: number[]) => percentile(xs, 50);

  // Conversion alone, in process, on 24 kHz speech: real-time factor without synthesis or HTTP.
  const converter = await RubberbandVoiceConverter.create();
  const base = await analyzer.analyze(
    {
      samples: await decodeWithFfmpeg(
        await speechBytes(ctx, ctx.apiKey, { input: CALIBRATION_TEXT, voice: 'slt', response_format: 'wav' }),
      ),
      sampleRate: 16000,
    },
    CALIBRATION_TEXT,
  );
  const target = await analyzer.analyze({ samples: await decodeWithFfmpeg(high), sampleRate: 16000 }, REFERENCE_TEXT);
  const profile: VoiceProfile = {
    version: VOICE_PROFILE_VERSION,
    analyzer: analyzer.name,
    speaker: target,
    base: { preset: 'slt', speaker: base },
  };
  const speech24k = await decodeWithFfmpeg(
    await speechBytes(ctx, ctx.apiKey, { input: TEXT_300, voice: 'slt', response_format: 'wav' }),
    24000,
  );
  const convertMs: number[] = [];
  for (let i = 0; i < 10; i++) {
    const conversion = converter.start(profile, 24000);
    const t0 = performance.now();
    for (let o = 0; o < speech24k.length; o += 48000) await conversion.process(speech24k.subarray(o, o + 48000));
    await conversion.flush();
    convertMs.push(performance.now() - t0);
  }
  const speechSeconds = speech24k.length / 24000;

  return {
    'reference for analysis': reference.source,
    'analysis of a 10 s reference p50 (ms)': round(p50(analysisMs)),
    'analysis real-time factor': round(p50(analysisMs) / 10000, 4),
    'register 10 s WAV over HTTP p50 (ms)': round(p50(registerMs)),
    'stream TTFB p50 (ms), preset slt': round(p50(preset.map((r) => r.ttfbMs))),
    'stream TTFB p50 (ms), registered cloned voice': round(p50(cloned.map((r) => r.ttfbMs))),
    'stream TTFB p95 (ms), registered cloned voice': round(
      percentile(
        cloned.map((r) => r.ttfbMs),
        95,
      ),
    ),
    'extra TTFB from conversion p50 (ms)': round(p50(cloned.map((r) => r.ttfbMs)) - p50(preset.map((r) => r.ttfbMs))),
    'stream TTFB p50 (ms), inline ref_audio (decode + analysis per request)': round(p50(inlineTtfb)),
    'audio seconds, 300 chars': round(audioSeconds),
    'whole stream RTF, preset slt': round(p50(preset.map((r) => r.totalMs)) / 1000 / audioSeconds, 4),
    'whole stream RTF, cloned voice': round(p50(cloned.map((r) => r.totalMs)) / 1000 / audioSeconds, 4),
    'conversion alone RTF (in process, 2 s chunks)': round(p50(convertMs) / 1000 / speechSeconds, 4),
  };
}
