import { z } from 'zod';
import { MAX_INLINE_MEDIA_SIZE, SHARED_TOKENS, SPEECH_TOKENS, TranscribeAudio } from '@svc/core';
import { rateLimitMiddleware, transcriptionRoutes } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule, type ModuleRoutes } from './module.js';
import { asTranscriber } from './speech-recognition.js';

/**
 * Speech to text for whole recordings (documented in docs/transcription.md): POST
 * /v1/audio/transcriptions, an extension beyond the service interface, answered by the realtime
 * recognizer SVC_ASR_ENGINE selects (pocketsphinx, Whisper, Moonshine or an upstream server, whose
 * settings live here). Without a recognizer the route answers 503 transcription_unavailable.
 */
export const transcriptionModule = defineModule({
  name: 'transcription',
  docs: 'docs/transcription.md',
  settings: {
    /** Longest recording POST /v1/audio/transcriptions accepts, in seconds of decoded audio. */
    SVC_TRANSCRIPTION_MAX_SECONDS: setting.int(300, 1, 7200),
    SVC_UPSTREAM_ASR_URL: setting
      .string('')
      .pipe(z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })])),
    SVC_UPSTREAM_ASR_KEY: setting.string(''),
    SVC_UPSTREAM_ASR_MODEL: setting.string('whisper-1'),
    SVC_UPSTREAM_ASR_TIMEOUT_MS: setting.int(60000, 1000, 600000),
  },
  bind(provide, config) {
    const maxDurationSeconds = config.settings.SVC_TRANSCRIPTION_MAX_SECONDS;
    provide(SERVER_TOKENS.TranscribeAudio, async (get) => {
      const selected = await get(SERVER_TOKENS.SelectedRecognizer);
      return new TranscribeAudio(await get(SPEECH_TOKENS.AudioCodec), selected ? asTranscriber(selected) : null, {
        maxDurationSeconds,
      });
    });
  },
  routes({ get }): ModuleRoutes {
    const transcribe = get(SERVER_TOKENS.TranscribeAudio);
    return {
      authenticated: [
        transcriptionRoutes({
          transcribe,
          // The spec's cap on an uploaded file, as for reference audio.
          maxFileBytes: MAX_INLINE_MEDIA_SIZE,
          maxDurationSeconds: transcribe.limits.maxDurationSeconds,
          rateLimit: rateLimitMiddleware(get(SHARED_TOKENS.RateLimiter), 'transcriptions'),
        }),
      ],
    };
  },
});
