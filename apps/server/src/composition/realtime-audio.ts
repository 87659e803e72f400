import { z } from 'zod';
import {
  REALTIME_TOKENS,
  SHARED_TOKENS,
  type Logger,
  type NoiseSuppressor,
  type OpusCodec,
  type Resampler,
  type SpeechRecognizer,
  type VoiceActivityDetector,
} from '@svc/core';
import { OpusscriptOpusCodec, PcmResampler, PocketsphinxSpeechRecognizer, RnnoiseNoiseSuppressor, SileroVoiceActivityDetector } from '@svc/adapters-inference';
import { setting } from '../env-settings.js';
import { defineModule } from './module.js';

/** What npm start's banner and /readyz say about realtime transcription. */
export interface SpeechRecognitionStatus {
  available: boolean;
  detail: string;
}

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
    SVC_ASR_ENGINE: z.enum(['auto', 'pocketsphinx', 'off']).default('auto'),
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
      { close: (vad) => (vad as SileroVoiceActivityDetector | null)?.release() },
    );
    let unavailable = 'off (SVC_ASR_ENGINE=off): realtime user audio is not transcribed';
    provide<SpeechRecognizer | null>(
      REALTIME_TOKENS.SpeechRecognizer,
      async (get) => {
        if (s.SVC_ASR_ENGINE === 'off') return null;
        const logger = await get<Logger>(SHARED_TOKENS.Logger);
        try {
          return await PocketsphinxSpeechRecognizer.create({
            decoders: s.SVC_ASR_DECODERS,
            warmDecoders: s.SVC_ASR_WARM_DECODERS,
            onDecoderWait: ({ waitedMs, queued }) =>
              logger.warn({ waitedMs: Math.round(waitedMs), queued, decoders: s.SVC_ASR_DECODERS }, 'a realtime turn waited for a speech decoder (raise SVC_ASR_DECODERS)'),
          });
        } catch (err) {
          if (s.SVC_ASR_ENGINE === 'pocketsphinx') throw err;
          unavailable = `unavailable: ${(err as Error).message}`;
          logger.warn({ err: (err as Error).message }, 'no speech recognizer: realtime audio turns get a transcription_unavailable error');
          return null;
        }
      },
      { close: (recognizer) => (recognizer as { close?: () => void } | null)?.close?.() },
    );
    provide<SpeechRecognitionStatus>(REALTIME_TOKENS.SpeechRecognitionStatus, async (get) =>
      (await get<SpeechRecognizer | null>(REALTIME_TOKENS.SpeechRecognizer))
        ? { available: true, detail: `pocketsphinx, streaming decoders (up to ${s.SVC_ASR_DECODERS})` }
        : { available: false, detail: unavailable },
    );
    provide<Resampler>(REALTIME_TOKENS.Resampler, () => new PcmResampler());
    provide<NoiseSuppressor>(REALTIME_TOKENS.NoiseSuppressor, () => RnnoiseNoiseSuppressor.create());
    provide<OpusCodec>(REALTIME_TOKENS.OpusCodec, () => new OpusscriptOpusCodec());
  },
});
