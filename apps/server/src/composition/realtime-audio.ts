import { z } from 'zod';
import {
  REALTIME_TOKENS,
  SHARED_TOKENS,
  type VoiceActivityDetector,
} from '@svc/core';
import { OpusscriptOpusCodec, PcmResampler, RnnoiseNoiseSuppressor, SileroVoiceActivityDetector } from '@svc/adapters-inference';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule } from './module.js';
import { ASR_ENGINE_PATTERN, selectSpeechRecognizer, type SelectedRecognizer } from './speech-recognition.js';

/**
 * The engines of the realtime audio pipeline (documented in docs/realtime.md): noise reduction
 * (RNNoise, WASM), turn detection (Silero VAD on onnxruntime-node, its weights ship in an npm
 * package), speech recognition (Debian's pocketsphinx through python3-pocketsphinx: warm streaming
 * decoders) and opus. `auto` uses pocketsphinx when it is installed and otherwise runs without a
 * recognizer, which the banner, /readyz and each audio turn (`transcription_unavailable`) say.
 */
export const realtimeAudioModule = defineModule({
  name: 'realtime-audio',
  docs: 'docs/realtime.md',
  settings: {
    SVC_VAD_ENGINE: z.enum(['silero', 'off']).default('silero'),
    /** auto | pocketsphinx | off | upstream | whisper:<model> | moonshine:<model> (see speech-recognition.ts). */
    SVC_ASR_ENGINE: z.string().regex(ASR_ENGINE_PATTERN, 'must be auto, pocketsphinx, off, upstream, whisper:<model> or moonshine:<model>').default('auto'),
    /** Most decoders shared by all sessions: turns recognized at once (~100 MB each, started on demand). */
    SVC_ASR_DECODERS: setting.int(16, 1, 256),
    /**
     * Decoders loaded at start (at most SVC_ASR_DECODERS). Starting one later forks a process from
     * the server's event loop while a turn waits, so a server expecting N simultaneous turns loads N.
     */
    SVC_ASR_WARM_DECODERS: setting.int(2, 1, 256),
  },
  bind(provide, config) {
    const s = config.settings;
    provide<VoiceActivityDetector | null>(
      REALTIME_TOKENS.VoiceActivityDetector,
      () => (s.SVC_VAD_ENGINE === 'silero' ? SileroVoiceActivityDetector.create() : null),
      { close: (vad) => vad?.close?.() },
    );
    let unavailable = 'off (SVC_ASR_ENGINE=off): realtime user audio is not transcribed';
    provide<SelectedRecognizer | null>(
      SERVER_TOKENS.SelectedRecognizer,
      async (get) => {
        const logger = await get(SHARED_TOKENS.Logger);
        try {
          const selected = await selectSpeechRecognizer(s, config.settings.SVC_DATA_DIR, logger);
          if (selected?.loadedModels) (await get(SERVER_TOKENS.Metrics)).trackNeuralModels(selected.loadedModels);
          return selected;
        } catch (err) {
          if (s.SVC_ASR_ENGINE !== 'auto') throw err;
          unavailable = `unavailable: ${(err as Error).message}`;
          logger.warn({ err: (err as Error).message }, 'no speech recognizer: realtime audio turns get a transcription_unavailable error');
          return null;
        }
      },
      { close: (selected) => selected?.recognizer.close?.() },
    );
    provide(REALTIME_TOKENS.SpeechRecognizer, async (get) => (await get(SERVER_TOKENS.SelectedRecognizer))?.recognizer ?? null);
    provide(REALTIME_TOKENS.SpeechRecognitionStatus, async (get) => {
      const selected = await get(SERVER_TOKENS.SelectedRecognizer);
      return selected ? { available: true, detail: selected.detail } : { available: false, detail: unavailable };
    });
    provide(REALTIME_TOKENS.Resampler, () => new PcmResampler());
    provide(REALTIME_TOKENS.NoiseSuppressor, () => RnnoiseNoiseSuppressor.create());
    provide(REALTIME_TOKENS.OpusCodec, () => new OpusscriptOpusCodec());
  },
});
