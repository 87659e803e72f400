import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@svc/core';
import { TransformersSpeechRecognizer, WhisperLogMel } from '@svc/adapters-speech-recognition';
import { writeTestAsrFolder } from '@svc/adapters-testing';
import { librivoxSentences } from '../test/helpers/librivox.js';
import { wordErrorRate } from '../test/helpers/wer.js';
import { percentile, round, startBenchServer } from './harness.js';

const ROUNDS = 3;

async function post(baseUrl: string, apiKey: string, wav: Buffer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([wav], { type: 'audio/wav' }), 'clip.wav');
  const res = await fetch(`${baseUrl}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form,
  });
  if (res.status !== 200) throw new Error(`transcriptions returned ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { text: string }).text;
}

const timeMs = async (fn: () => unknown): Promise<number> => {
  const started = performance.now();
  await fn();
  return performance.now() - started;
};

/**
 * POST /v1/audio/transcriptions with pocketsphinx (latency, real-time factor, WER on the five
 * LibriVox sentences), Whisper's log-mel feature extraction, and the Whisper pipeline on the
 * test-built model (features + encoder + decoding loop; a real model's encoder/decoder cost is not
 * measurable here: no weights can be downloaded).
 */
export async function benchTranscription(ctx: { baseUrl: string; apiKey: string }): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  const all = librivoxSentences();
  const latencies: number[] = [];
  const ratios: number[] = [];
  let heard: string[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    heard = [];
    for (const clip of all) {
      let text = '';
      const ms = await timeMs(async () => (text = await post(ctx.baseUrl, ctx.apiKey, clip.wav)));
      latencies.push(ms);
      ratios.push(ms / 1000 / clip.seconds);
      heard.push(text);
    }
  }
  out['pocketsphinx endpoint latency p50 / p95 (ms, 3-7 s clips)'] =
    `${round(percentile(latencies, 50), 0)} / ${round(percentile(latencies, 95), 0)}`;
  out['pocketsphinx endpoint latency / audio duration p50 / p95'] = `${round(percentile(ratios, 50))} / ${round(percentile(ratios, 95))}`;
  out['pocketsphinx endpoint WER (5 LibriVox sentences, 71 words)'] =
    `${round(wordErrorRate(all.map((c) => c.words).join(' '), heard.join(' ')) * 100, 1)} %`;

  const mel = new WhisperLogMel(80);
  const speech = (seconds: number) => Float32Array.from({ length: seconds * 16000 }, (_, i) => 0.3 * Math.sin(i / 7) * Math.sin(i / 3000));
  for (const seconds of [5, 30]) {
    const audio = speech(seconds);
    mel.compute(audio);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) times.push(await timeMs(() => mel.compute(audio)));
    out[`whisper log-mel features, ${seconds} s of audio (ms p50 / p95)`] =
      `${round(percentile(times, 50), 1)} / ${round(percentile(times, 95), 1)}`;
  }

  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-asr-'));
  try {
    await writeTestAsrFolder(join(dir, 'whisper-test'), { family: 'whisper' });
    const recognizer = await TransformersSpeechRecognizer.create({ dir: join(dir, 'whisper-test') });
    const principal = { keyId: 'bench' } as unknown as Principal;
    const pcm = Int16Array.from(speech(5), (v) => Math.round(v * 32767));
    const times: number[] = [];
    for (let i = 0; i < 10; i++)
      times.push(await timeMs(() => recognizer.transcribe({ samples: pcm, sampleRate: 16000 }, { language: 'en', principal })));
    await recognizer.close();
    out['whisper pipeline on the test model, 5 s turn: features + encoder + 5 decoder steps (ms p50 / p95)'] =
      `${round(percentile(times, 50), 1)} / ${round(percentile(times, 95), 1)}`;
    const server = await startBenchServer({ SVC_MODELS_DIR: dir, SVC_ASR_ENGINE: 'whisper:whisper-test' });
    try {
      const endpoint: number[] = [];
      for (const clip of all) endpoint.push(await timeMs(() => post(server.baseUrl, server.apiKey, clip.wav)));
      out['whisper test model through the endpoint (ms p50 / p95, upload + ffmpeg decode + pipeline)'] =
        `${round(percentile(endpoint, 50), 0)} / ${round(percentile(endpoint, 95), 0)}`;
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
