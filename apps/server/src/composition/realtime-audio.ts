import { z } from 'zod';
import { REALTIME_TOKENS, SHARED_TOKENS, type EndOfTurnModel, type VoiceActivityDetector } from '@svc/core';
import { OpusscriptOpusCodec } from '@svc/adapters-media';
import { PcmResampler, RnnoiseNoiseSuppressor, SileroVoiceActivityDetector, SmartTurnModel } from '@svc/adapters-speech-recognition';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule } from './module.js';
import { ASR_ENGINE_PATTERN, selectSpeechRecognizer, type SelectedRecognizer } from './speech-recognition.js';
import { LazyVoiceActivityDetector } from '../runtime/lazy-voice-activity-detector.js';
import { servesApi } from '../runtime/process-role.js';
import { warmUp, warmUpOnThisProcess } from '../runtime/warm-up.js';
import { modelsDirOf } from '../runtime/models-dir.js';
import { turnModelFile } from '../runtime/turn-model-file.js';

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
    /**
     * Longest a session's 32 ms VAD frame waits for other sessions' frames to share one model run
     * (ms; 0: only frames arriving together). A run costs about as much for 1 frame as for 3.
     */
    SVC_VAD_BATCH_WAIT_MS: setting.int(16, 0, 32),
    /** auto | pocketsphinx | off | upstream | whisper:<model> | moonshine:<model> (see speech-recognition.ts). */
    SVC_ASR_ENGINE: z
      .string()
      .regex(ASR_ENGINE_PATTERN, 'must be auto, pocketsphinx, off, upstream, whisper:<model> or moonshine:<model>')
      .default('auto'),
    /**
     * Most decoders shared by all sessions: turns recognized at once (a process each, started on
     * demand; their memory: docs/deployment.md, Memory and warm-up).
     */
    SVC_ASR_DECODERS: setting.int(16, 1, 256),
    /**
     * Decoders loaded at start when SVC_REALTIME_WARM_UP is background or blocking (at most
     * SVC_ASR_DECODERS). Later ones are forked, model loaded, by the decoders' fork server in a few ms.
     */
    SVC_ASR_WARM_DECODERS: setting.int(2, 1, 256),
    /**
     * The VAD model and the speech decoders (their memory: docs/deployment.md, Memory and warm-up):
     * on the first session or turn that needs them by default; background / blocking load them (and
     * SVC_ASR_WARM_DECODERS decoders) at start.
     */
    SVC_REALTIME_WARM_UP: setting.warmUp('lazy'),
    /**
     * semantic_vad's learned end-of-turn model (an extension; unset: the rule alone decides): a
     * Smart Turn v3 ONNX file, or the name of one pulled with `npm run models -- pull smart-turn-v3.2`.
     * Asked at a pause the rule would wait out; a finished verdict ends the turn there.
     */
    SVC_TURN_MODEL: setting.string(''),
    /** The model's probability from which a turn is finished (0.5: Smart Turn's own; its 8-bit and fp32 exports differ). */
    SVC_TURN_MODEL_THRESHOLD: setting.decimal(0.5, 0, 1),
  },
  bind(provide, config) {
    const s = config.settings;
    // WARM-UP (realtime audio): a worker process runs no session, so nothing loads there.
    const policy = warmUpOnThisProcess(config, s.SVC_REALTIME_WARM_UP);
    provide<VoiceActivityDetector | null>(
      REALTIME_TOKENS.VoiceActivityDetector,
      async (get) => {
        if (s.SVC_VAD_ENGINE !== 'silero') return null;
        const vad = new LazyVoiceActivityDetector(() => SileroVoiceActivityDetector.create({ batchWaitMs: s.SVC_VAD_BATCH_WAIT_MS }));
        await warmUp(policy, 'voice activity detector', () => vad.warmUp(), await get(SHARED_TOKENS.Logger));
        return vad;
      },
      { close: (vad) => vad?.close?.() },
    );
    let unavailable = 'off (SVC_ASR_ENGINE=off): realtime user audio is not transcribed';
    provide<SelectedRecognizer | null>(
      SERVER_TOKENS.SelectedRecognizer,
      async (get) => {
        const logger = await get(SHARED_TOKENS.Logger);
        if (!servesApi(config)) {
          unavailable = 'not loaded on a worker process (SVC_ROLE=worker renders videos only)';
          return null;
        }
        try {
          // Lazy: no decoder is held until the first turn (the process's first start still loads
          // one, to prove the installation works, and stops it).
          const selected = await selectSpeechRecognizer(
            { ...s, SVC_ASR_WARM_DECODERS: policy === 'lazy' ? 0 : s.SVC_ASR_WARM_DECODERS },
            config.settings.SVC_DATA_DIR,
            logger,
          );
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
    provide<EndOfTurnModel | null>(
      REALTIME_TOKENS.EndOfTurnModel,
      async (get) => {
        if (!s.SVC_TURN_MODEL || !servesApi(config)) return null;
        const file = await turnModelFile(s.SVC_TURN_MODEL, modelsDirOf(s.SVC_MODELS_DIR, config.settings.SVC_DATA_DIR));
        const model = await SmartTurnModel.load(file, { threshold: s.SVC_TURN_MODEL_THRESHOLD, threads: s.SVC_ONNX_THREADS });
        (await get(SHARED_TOKENS.Logger)).info({ file, threshold: model.threshold }, 'semantic_vad end-of-turn model loaded');
        return model;
      },
      { close: (model) => model?.close?.() },
    );
    provide(REALTIME_TOKENS.Resampler, () => new PcmResampler());
    provide(REALTIME_TOKENS.NoiseSuppressor, () => RnnoiseNoiseSuppressor.create());
    provide(REALTIME_TOKENS.OpusCodec, () => new OpusscriptOpusCodec());
  },
});
