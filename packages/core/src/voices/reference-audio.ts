import { InvalidAudioError } from '../shared/errors.js';
import { pcmToBytes, type PcmAudio } from '../shared/audio.js';
import type { Hasher } from '../shared/ids.js';
import type { AudioCodec } from '../speech/audio-codec.js';
import { EmptyMediaError } from '../media/errors.js';
import type { MediaFetcher, MediaInput } from '../media/media-fetcher.js';
import { ReferenceAudioSilentError, ReferenceAudioTooLongError, ReferenceAudioTooShortError } from './errors.js';
import { REFERENCE_SAMPLE_RATE, VOICE_LIMITS, voiceIdFromDigest } from './voice.js';

/** A reference clip, fetched, decoded and checked, with the id its content gives it. */
export interface ReferenceAudio {
  /** The bytes as supplied (kept in the blob store). */
  bytes: Uint8Array;
  format: string;
  /** Mono PCM at REFERENCE_SAMPLE_RATE. */
  pcm: PcmAudio;
  durationSeconds: number;
  /** `voice_` + digest of the decoded PCM: independent of container and metadata. */
  voiceId: string;
}

/** Below this RMS (about -60 dBFS) a clip is treated as silence. */
const SILENCE_RMS = 0.001;

/**
 * Fetches, decodes and checks a reference clip: shared by voice registration and inline cloning so
 * both refuse the same inputs with the same errors. Decoding detects the format from the bytes.
 */
export class ReferenceAudioLoader {
  constructor(
    private readonly fetcher: MediaFetcher,
    private readonly codec: AudioCodec,
    private readonly hasher: Hasher,
  ) {}

  /**
   * `uploadable`: the request could have sent the clip as a multipart file (named in size errors);
   * `apiKeyId`: the caller, whose large transfers in progress a URL download counts in.
   */
  async load(
    input: MediaInput,
    param: string,
    signal?: AbortSignal,
    { uploadable = false, apiKeyId }: { uploadable?: boolean; apiKeyId?: string } = {},
  ): Promise<ReferenceAudio> {
    const bytes = await this.fetcher.fetch(input, { param, kind: 'audio', uploadable, apiKeyId, signal });
    if (bytes.length === 0) throw new EmptyMediaError(param);
    // One second past the limit is enough to know a clip is too long; decoding stops there.
    const decoded = await this.codec
      .decode(bytes, REFERENCE_SAMPLE_RATE, signal, { maxSeconds: VOICE_LIMITS.maxDurationSeconds + 1 })
      .catch((err: unknown) => {
        // The codec does not know which field the bytes came from; the caller does.
        throw err instanceof InvalidAudioError && err.param === null ? new InvalidAudioError(err.message, param) : err;
      });
    const pcm: PcmAudio = { samples: decoded.samples, sampleRate: decoded.sampleRate };
    const durationSeconds = pcm.samples.length / pcm.sampleRate;
    if (durationSeconds < VOICE_LIMITS.minDurationSeconds) {
      throw new ReferenceAudioTooShortError(
        `'${param}' lasts ${durationSeconds.toFixed(2)} s; a reference needs at least ${VOICE_LIMITS.minDurationSeconds} s of speech (5-20 s recommended).`,
        param,
      );
    }
    if (durationSeconds > VOICE_LIMITS.maxDurationSeconds) {
      throw new ReferenceAudioTooLongError(
        `'${param}' lasts more than ${VOICE_LIMITS.maxDurationSeconds} s, the maximum (5-20 s recommended).`,
        param,
      );
    }
    if (peakRms(pcm.samples, pcm.sampleRate) < SILENCE_RMS) {
      throw new ReferenceAudioSilentError(`'${param}' is silent; it must contain the speaker's voice.`, param);
    }
    const voiceId = voiceIdFromDigest(this.hasher.sha256(pcmToBytes(pcm.samples)));
    return { bytes, format: decoded.format, pcm, durationSeconds, voiceId };
  }
}

/**
 * RMS of the loudest 50 ms window: a clip with some speech and long pauses must not be judged
 * silent by its average level.
 */
function peakRms(samples: Int16Array, sampleRate: number): number {
  const window = Math.max(1, Math.round(sampleRate * 0.05));
  let best = 0;
  for (let start = 0; start < samples.length; start += window) {
    const end = Math.min(samples.length, start + window);
    let sum = 0;
    for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
    best = Math.max(best, sum / (end - start));
  }
  return Math.sqrt(best) / 32768;
}
