import type { Principal } from '../auth/api-key.js';
import { bytesToPcm, OUTPUT_SAMPLE_RATE } from '../shared/audio.js';
import { InvalidAudioError } from '../shared/errors.js';
import { EmptyMediaError } from '../media/errors.js';
import type { MediaFetcher, MediaInput } from '../media/media-fetcher.js';
import type { AudioCodec } from '../speech/audio-codec.js';
import type { SpeechRequest } from '../speech/speech-request.js';
import type { SynthesizeSpeech } from '../speech/synthesize-speech.js';
import { DrivingAudioTooLongError, InputTtsTooLongError } from './errors.js';
import type { DrivingSpeech } from './ports.js';
import { nestedSpeechErrors, type DrivingSource } from './video-request.js';
import { VIDEO_LIMITS } from './video-limits.js';

/**
 * The driving speech of a video, obtained and checked before a job exists: `input` is fetched and
 * decoded (stopping a second past the limit, so hours of compressed silence cost nothing), and
 * `input_tts` is synthesized by the speech endpoint's own use case, stopping as soon as the audio
 * passes the limit. Synthesis runs far faster than real time (docs/benchmarks.md, Speech), so even
 * a 60 s clip costs little.
 */
export class DrivingSpeechLoader {
  constructor(
    private readonly fetcher: MediaFetcher,
    private readonly codec: AudioCodec,
    private readonly synthesize: SynthesizeSpeech,
  ) {}

  load(source: DrivingSource, principal: Principal, signal?: AbortSignal): Promise<DrivingSpeech> {
    if (source.kind === 'audio') return this.decode(source.input, principal.apiKeyId, signal);
    // Errors of the nested speech request name their field as `input_tts.<field>`.
    return nestedSpeechErrors(() => this.speak(source.speech, principal, signal));
  }

  /** `apiKeyId`: the caller, whose large transfers in progress a URL download counts in. */
  private async decode(input: MediaInput, apiKeyId: string, signal?: AbortSignal): Promise<DrivingSpeech> {
    const bytes = await this.fetcher.fetch(input, { param: 'input', kind: 'audio', uploadable: true, apiKeyId, signal });
    if (bytes.length === 0) throw new EmptyMediaError('input');
    const decoded = await this.codec
      .decode(bytes, OUTPUT_SAMPLE_RATE, signal, { maxSeconds: VIDEO_LIMITS.maxDrivingSeconds + 1 })
      .catch((err: unknown) => {
        throw err instanceof InvalidAudioError && err.param === null ? new InvalidAudioError(err.message, 'input') : err;
      });
    if (decoded.samples.length === 0) throw new InvalidAudioError("'input' holds no audio samples.", 'input');
    if (decoded.samples.length > VIDEO_LIMITS.maxDrivingSeconds * decoded.sampleRate) {
      throw new DrivingAudioTooLongError(VIDEO_LIMITS.maxDrivingSeconds);
    }
    return { audio: { samples: decoded.samples, sampleRate: decoded.sampleRate } };
  }

  private async speak(speech: SpeechRequest, principal: Principal, signal?: AbortSignal): Promise<DrivingSpeech> {
    const abort = new AbortController();
    const onAbort = () => abort.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await this.synthesize.execute(
        { ...speech, responseFormat: 'pcm', stream: false, timestamps: true },
        principal,
        abort.signal,
      );
      const limit = VIDEO_LIMITS.maxDrivingSeconds * result.sampleRate;
      const chunks: Uint8Array[] = [];
      let bytes = 0;
      for await (const chunk of result.body) {
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes / 2 > limit) {
          // Stop the synthesizer: the rest of the text would only make it longer.
          abort.abort(new InputTtsTooLongError(VIDEO_LIMITS.maxDrivingSeconds));
          throw new InputTtsTooLongError(VIDEO_LIMITS.maxDrivingSeconds);
        }
      }
      const joined = new Uint8Array(bytes);
      let offset = 0;
      for (const c of chunks) {
        joined.set(c, offset);
        offset += c.length;
      }
      const samples = bytesToPcm(joined);
      if (samples.length === 0) throw new InvalidAudioError("'input_tts' produced no audio.", 'input_tts');
      return { audio: { samples, sampleRate: result.sampleRate }, words: [...result.words] };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
