import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SPEECH_TOKENS } from '@svc/core';
import { writeKokoroModel, writePiperVoice } from '@svc/adapters-testing';
import { percentile, round, startBenchServer, timedSpeech } from './harness.js';
import { TEXT_300 } from './speech.js';

/**
 * Neural voices through the worker threads vs the embedded engines (issue 12). No real weights can
 * be downloaded here: the Piper and Kokoro models are the TEST-BUILT ones (a few ONNX ops making a
 * tone), sized so their audio lasts about as long as real speech (~70 ms per phoneme). Their
 * inference costs almost nothing, so these figures measure OUR overhead around a neural model
 * (phonemizing in the espeak-ng thread, the hop to the model's thread, resampling, streaming), not
 * the speed or quality of real Piper/Kokoro models.
 */
export async function benchNeural(): Promise<Record<string, number | string>> {
  const modelsDir = mkdtempSync(join(tmpdir(), 'svc-bench-models-'));
  // hop: samples per id. Piper intersperses a pad id after each phoneme (2 ids per phoneme).
  await writePiperVoice(modelsDir, 'en_US-bench-medium', { sampleRate: 22050, hop: 800 });
  await writeKokoroModel(join(modelsDir, 'kokoro'), { af_bench: () => 0.1 }, { hop: 1700 });
  const bench = await startBenchServer({ SVC_MODELS_DIR: modelsDir, SVC_TTS_ENGINES: 'flite,espeak' });
  const out: Record<string, number | string> = {};
  try {
    const catalog = bench.server.services.get(SPEECH_TOKENS.VoiceCatalog);
    const sentences = TEXT_300.match(/[^.!?]+[.!?]/g)!.map((s) => s.trim());
    for (const voiceName of ['slt', 'espeak-en-us', 'piper-en_us-bench-medium', 'kokoro-af_bench']) {
      const voice = catalog.get(voiceName);
      if (!voice) {
        out[`${voiceName}`] = 'not configured';
        continue;
      }
      const stream = { input: TEXT_300, voice: voiceName, response_format: 'pcm', stream: true };
      for (let i = 0; i < 3; i++) await timedSpeech(bench, stream); // warm threads and espeak voices
      const ttfb: number[] = [];
      const total: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 20; i++) {
        const r = await timedSpeech(bench, stream);
        ttfb.push(r.ttfbMs);
        total.push(r.totalMs);
        bytes = r.bytes;
      }
      const audioSeconds = bytes / 2 / 24000;
      // The engine alone, sentence by sentence, and how long the main event loop was busy meanwhile.
      const engine = catalog.engineFor(voice);
      const engineMs: number[] = [];
      const busyMs: number[] = [];
      for (let i = 0; i < 10; i++) {
        const elu = performance.eventLoopUtilization();
        const t0 = performance.now();
        for (const text of sentences)
          await engine.synthesize({
            text,
            voice,
            prosody: { rate: 1, pitch: 1, pitchRange: 1, volume: 1 },
            sampleRate: 24000,
            wordTimings: false,
          });
        engineMs.push(performance.now() - t0);
        busyMs.push(performance.eventLoopUtilization(elu).active);
      }
      const p50 = (xs: number[]) => percentile(xs, 50);
      out[`${voiceName}: audio seconds (300 chars)`] = round(audioSeconds);
      out[`${voiceName}: first audio p50 / p95 (ms)`] = `${round(p50(ttfb), 1)} / ${round(percentile(ttfb, 95), 1)}`;
      out[`${voiceName}: HTTP real-time factor p50`] = round(p50(total) / 1000 / audioSeconds, 4);
      out[`${voiceName}: engine only p50 (ms), RTF`] = `${round(p50(engineMs), 1)}, ${round(p50(engineMs) / 1000 / audioSeconds, 4)}`;
      out[`${voiceName}: main loop busy during engine p50 (ms)`] = round(p50(busyMs), 1);
    }
  } finally {
    await bench.close();
    rmSync(modelsDir, { recursive: true, force: true });
  }
  return out;
}
