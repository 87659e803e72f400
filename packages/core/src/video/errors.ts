import { ServiceError } from '../shared/errors.js';

/**
 * Every way a video request can be refused has its own identifier (REST `error.type` and `code`), so
 * a client can tell them apart without reading messages. All are decided before a job exists.
 */

/** The reference image holds no face the avatar renderer can animate. */
export class NoFaceDetectedError extends ServiceError {
  readonly identifier = 'no_face_detected';
  constructor(message = "No face was found in 'ref_image'. Use a photo with one clearly visible face.") {
    super(message, 'ref_image');
  }
}

/** Both `input` and `input_tts` were sent: the driving speech must come from exactly one. */
export class VideoInputConflictError extends ServiceError {
  readonly identifier = 'video_input_conflict';
  constructor() {
    super("Send exactly one of 'input' (driving audio) or 'input_tts' (a speech request), not both.", 'input');
  }
}

/** Neither `input` nor `input_tts` was sent. */
export class VideoInputMissingError extends ServiceError {
  readonly identifier = 'video_input_missing';
  constructor() {
    super("Send one of 'input' (driving audio) or 'input_tts' (a speech request).", 'input');
  }
}

export class InvalidVideoSizeError extends ServiceError {
  readonly identifier = 'invalid_video_size';
  constructor(size: string, allowed: readonly string[]) {
    super(`Unsupported size '${size}'; use one of ${allowed.join(', ')}.`, 'size');
  }
}

export class InvalidVideoModelError extends ServiceError {
  readonly identifier = 'invalid_video_model';
  constructor(model: string, only: string) {
    super(`Unsupported model '${model}'; the only video model is '${only}'.`, 'model');
  }
}

/** The reference image is not a PNG, JPEG or WEBP (decided from its bytes). */
export class InvalidImageError extends ServiceError {
  readonly identifier = 'invalid_image';
  constructor(param = 'ref_image', message = `'${param}' is not a PNG, JPEG or WEBP image.`) {
    super(message, param);
  }
}

/** The image header declares more pixels than the service decodes (a decompression bomb, or just huge). */
export class ImageDimensionsTooLargeError extends ServiceError {
  readonly identifier = 'image_dimensions_too_large';
  constructor(width: number, height: number, maxSide: number, maxPixels: number) {
    super(
      `'ref_image' is ${width}x${height} pixels; the maximum is ${maxSide} pixels per side and ${Math.round(maxPixels / 1e6)} megapixels. Scale the photo down.`,
      'ref_image',
    );
  }
}

/** The driving audio (`input`) lasts longer than the video limit. */
export class DrivingAudioTooLongError extends ServiceError {
  readonly identifier = 'video_input_too_long';
  constructor(maxSeconds: number) {
    super(`'input' lasts more than ${maxSeconds} s, the maximum length of a video.`, 'input');
  }
}

/** The speech `input_tts` asks for would last longer than the video limit. */
export class InputTtsTooLongError extends ServiceError {
  readonly identifier = 'input_tts_too_long';
  constructor(maxSeconds: number) {
    super(
      `The speech of 'input_tts' would last more than ${maxSeconds} s, the maximum length of a video; shorten 'input_tts.input'.`,
      'input_tts.input',
    );
  }
}

/** `input_tts.stream`: a video request is streamed with POST /v1/videos/stream, never through its speech. */
export class InputTtsStreamUnsupportedError extends ServiceError {
  readonly identifier = 'input_tts_stream_unsupported';
  constructor() {
    super("'stream' is not supported inside 'input_tts'; use POST /v1/videos/stream to stream the video.", 'input_tts.stream');
  }
}

/** GET /v1/videos/{id}/content?variant=...: only `video` exists. */
export class InvalidVideoVariantError extends ServiceError {
  readonly identifier = 'invalid_video_variant';
  constructor(variant: string) {
    super(`Unsupported variant '${variant}'; the only variant is 'video'.`, 'variant');
  }
}

/**
 * POST /v1/videos/stream while this process already renders its maximum of live videos (each takes
 * about a core). Decided before the body is read. The spec shows no identifier for it; the name
 * follows the realtime limit's wording ("max concurrency exceeded; retry later"): HTTP 429.
 */
export class LiveVideoLimitError extends ServiceError {
  readonly identifier = 'concurrency_limit_exceeded';
  /** A live video lasts at most 60 s; most end well before. */
  readonly retryAfterSeconds = 5;
  constructor(max: number) {
    super(
      `This server is already streaming ${max} live video${max === 1 ? '' : 's'}, its limit. Retry in a few seconds, or create the video with POST /v1/videos and download it when it is completed.`,
    );
  }
}

/**
 * POST /v1/videos while the calling key already has its maximum of videos waiting or rendering
 * (SVC_VIDEO_MAX_PENDING_PER_KEY). The renders of every key share one queue, drained in order: without
 * it one key's burst (the rate limit admits 100 at once, a minute of video each) held every other
 * key's video behind it for hours. Decided before the body is read: HTTP 429, like the stream limit.
 */
export class VideoBacklogLimitError extends ServiceError {
  readonly identifier = 'concurrency_limit_exceeded';
  /** A queued video renders in about its own length (at most 60 s). */
  readonly retryAfterSeconds = 30;
  constructor(max: number) {
    super(
      `This API key already has ${max} video${max === 1 ? '' : 's'} queued or rendering, its limit. Retry once one of them is completed (poll GET /v1/videos/{video_id}).`,
    );
  }
}
