import { MissingParameterError, ServiceError } from '../shared/errors.js';
import type { MediaInput } from '../media/media-fetcher.js';
import { validateSpeechRequest, type SpeechRequest, type SpeechRequestInput } from '../speech/speech-request.js';
import { InputTtsStreamUnsupportedError, VideoInputConflictError, VideoInputMissingError } from './errors.js';
import { parseVideoModel, parseVideoSize, type VIDEO_MODEL, type VideoSize } from './video-job.js';

/** The video request as received (after the transport checked JSON types and unknown fields). */
export interface VideoRequestInput {
  ref_image?: MediaInput | null;
  model?: string | null;
  input?: MediaInput | null;
  input_tts?: SpeechRequestInput | null;
  size?: string | null;
}

/** Where the driving speech comes from: audio to decode, or a speech request to synthesize. */
export type DrivingSource = { kind: 'audio'; input: MediaInput } | { kind: 'tts'; speech: SpeechRequest };

export interface VideoRequest {
  refImage: MediaInput;
  model: typeof VIDEO_MODEL;
  size: VideoSize;
  drive: DrivingSource;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * The spec's rules of a video request that need no I/O: the cheap ones, applied before anything is
 * fetched, decoded or synthesized. `input_tts` goes through the speech endpoint's own validation
 * (every rule of POST /v1/audio/speech holds), then is set up for the avatar: raw PCM out and word
 * timings on, so the renderer can drive the mouth from the words.
 */
export function validateVideoRequest(raw: VideoRequestInput): VideoRequest {
  if (!present(raw.ref_image)) throw new MissingParameterError('ref_image');
  const model = parseVideoModel(raw.model);
  const size = parseVideoSize(raw.size);
  const hasAudio = present(raw.input);
  const hasTts = present(raw.input_tts);
  if (hasAudio && hasTts) throw new VideoInputConflictError();
  if (!hasAudio && !hasTts) throw new VideoInputMissingError();
  let drive: DrivingSource;
  if (hasTts) {
    const tts = raw.input_tts!;
    if (tts.stream !== undefined && tts.stream !== null && tts.stream !== false) throw new InputTtsStreamUnsupportedError();
    const speech = nestedSpeechErrors(() => validateSpeechRequest(tts, { nested: true }));
    // The format of the nested request does not matter: the speech becomes the video's AAC track.
    drive = { kind: 'tts', speech: { ...speech, responseFormat: 'pcm', stream: false, timestamps: true } };
  } else {
    drive = { kind: 'audio', input: raw.input! };
  }
  return { refImage: raw.ref_image!, model, size, drive };
}

/** The field of a video request that holds a whole speech request. */
export const INPUT_TTS = 'input_tts';

/**
 * Runs the nested speech request's rules (or its synthesis), its errors naming their field by the
 * dotted path: `input_tts.input`, never `input`, which in a video request is the driving audio.
 */
export function nestedSpeechErrors<T>(run: () => T): T {
  const nest = (err: unknown): never => {
    throw err instanceof ServiceError ? err.nestedIn(INPUT_TTS) : err;
  };
  try {
    const result = run();
    return (result instanceof Promise ? result.catch(nest) : result) as T;
  } catch (err) {
    return nest(err);
  }
}
