/**
 * One typed error per identifier. Every error carries its meaning: the identifier (REST `type` and
 * `code`, realtime `error.type`/`error.code`), a message for the caller, optionally the request
 * parameter at fault, and whether the server rather than the request is at fault. No transport
 * detail: the HTTP status of each class is in ONE table, packages/adapters-http/src/errors/
 * http-status.ts (a test fails for a class without a row; the lint refuses `status` here).
 */
/** Longest piece of a caller's identifier an error message repeats. */
export const MAX_ECHOED_CHARS = 64;

/**
 * A caller's identifier as an error message repeats it: at most MAX_ECHOED_CHARS of it (a 5,000-
 * character model id made a 5 KB 404), the cut marked with an ellipsis.
 */
export function echoed(text: string): string {
  return text.length > MAX_ECHOED_CHARS ? `${text.slice(0, MAX_ECHOED_CHARS)}…` : text;
}

export abstract class ServiceError extends Error {
  abstract readonly identifier: string;
  /** The server, not the request, failed (engine failure, bug, missing feature): logged as an error. */
  readonly serverFault: boolean = false;
  /**
   * `mentions`: other fields of the same request the message quotes (`'ref_audio'` beside the
   * param `voice`), renamed with it when the error is nested (nestedIn).
   */
  constructor(
    message: string,
    readonly param: string | null = null,
    private readonly mentions: readonly string[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }

  /**
   * This error as raised inside a nested request (the `input_tts` speech request of a video, where
   * `input` means something else): `param` becomes the dotted path (`input_tts.voice`, or the parent
   * itself when no field was named) and the field quoted in the message is renamed the same way.
   * Server faults are about no field and stay as they are.
   */
  nestedIn(parent: string): this {
    if (this.serverFault || this.param === parent || this.param?.startsWith(`${parent}.`)) return this;
    const nested = this.param === null ? parent : `${parent}.${this.param}`;
    for (const field of this.param === null ? this.mentions : [this.param, ...this.mentions])
      this.message = this.message.split(`'${field}'`).join(`'${parent}.${field}'`);
    (this as { param: string | null }).param = nested;
    return this;
  }
}

// ---- the request itself is wrong -------------------------------------------------------
export class InvalidRequestError extends ServiceError {
  readonly identifier = 'invalid_request_error';
}
export class InvalidJsonError extends ServiceError {
  readonly identifier = 'invalid_json';
  /** `param`: the field whose text is not JSON (a multipart text field holding a JSON object); null for the body. */
  constructor(message = 'The request body is not valid JSON.', param: string | null = null) {
    super(message, param);
  }
}
export class UnknownParameterError extends ServiceError {
  readonly identifier = 'unknown_parameter';
  constructor(param: string) {
    super(`Unrecognized request argument supplied: ${param}`, param);
  }
}
export class MissingParameterError extends ServiceError {
  readonly identifier = 'missing_required_parameter';
  constructor(param: string) {
    super(`Missing required parameter: '${param}'.`, param);
  }
}
export class InvalidParameterError extends ServiceError {
  readonly identifier = 'invalid_parameter';
}
export class InputTooLongError extends ServiceError {
  readonly identifier = 'input_too_long';
  constructor(max: number, actual: number) {
    super(`'input' is ${actual} characters long; the maximum is ${max}.`, 'input');
  }
}
export class InputEmptyError extends ServiceError {
  readonly identifier = 'input_empty';
  constructor(message = "'input' must contain at least one character.") {
    super(message, 'input');
  }
}
export class NothingToSpeakError extends ServiceError {
  readonly identifier = 'input_not_speakable';
  constructor() {
    super("'input' contains nothing that can be spoken (no letters or digits once tags and invisible characters are removed).", 'input');
  }
}
export class InvalidLanguageTagError extends ServiceError {
  readonly identifier = 'invalid_language_tag';
  constructor(param: string, maxChars: number) {
    super(
      `'${param}' must be a language tag such as 'en', 'fr' or 'en-US' (ISO 639 / BCP-47, letters, digits and hyphens, at most ${maxChars} characters).`,
      param,
    );
  }
}
/** Refused by the HTTP parser before any route runs (the service answers them in the REST shape too). */
export class RequestHeaderTooLargeError extends ServiceError {
  readonly identifier = 'request_header_too_large';
  constructor() {
    super("The request headers are too large (the limit is the HTTP server's header size, 16 KiB by default).");
  }
}
export class RequestTimeoutError extends ServiceError {
  readonly identifier = 'request_timeout';
  constructor() {
    super('The request did not arrive in time (its headers, or the whole request within SVC_REQUEST_TIMEOUT_MS).');
  }
}
export class StreamFormatError extends ServiceError {
  readonly identifier = 'stream_requires_pcm';
  constructor() {
    super("Streaming requires response_format 'pcm'.", 'response_format');
  }
}
/** An alias voice (`alloy`) asked for a language no installed voice speaks. */
export class VoiceLanguageUnsupportedError extends ServiceError {
  readonly identifier = 'voice_language_unsupported';
  constructor(voice: string, language: string) {
    super(
      `No installed voice speaks '${language}', so '${voice}' cannot speak it; omit 'tn_language' or name a language GET /v1/audio/presets lists.`,
      'tn_language',
    );
  }
}
export class ConflictingVoiceError extends ServiceError {
  readonly identifier = 'voice_conflict';
  constructor() {
    super("'voice' and 'ref_audio'/'ref_text' are mutually exclusive; send one or the other.", 'voice', ['ref_audio', 'ref_text']);
  }
}
export class InvalidAudioError extends ServiceError {
  readonly identifier = 'invalid_audio';
}
export class InvalidMediaUrlError extends ServiceError {
  readonly identifier = 'invalid_media_url';
}
export class MediaFetchFailedError extends ServiceError {
  readonly identifier = 'media_fetch_failed';
}

// ---- who may do what, what exists, how much --------------------------------------------------------------
export class InvalidApiKeyError extends ServiceError {
  readonly identifier = 'invalid_api_key';
  constructor(message = 'Missing or invalid API key. Send "Authorization: Bearer <API_KEY>".') {
    super(message);
  }
}
export class VoiceNotDeletableError extends ServiceError {
  readonly identifier = 'voice_not_deletable';
  constructor(voice: string) {
    super(`The voice '${voice}' is a shared preset and cannot be deleted.`, 'voice');
  }
}
export class NotFoundError extends ServiceError {
  readonly identifier = 'not_found';
}
export class VoiceNotFoundError extends ServiceError {
  readonly identifier = 'voice_not_found';
  constructor(voice: string) {
    super(`No voice found with id '${echoed(voice)}'.`, 'voice');
  }
}
/** GET /v1/models/{model}: not a model this server offers. */
export class ModelNotFoundError extends ServiceError {
  readonly identifier = 'model_not_found';
  constructor(model: string) {
    super(`The model '${echoed(model)}' does not exist on this server (GET /v1/models lists them).`, 'model');
  }
}
export class VideoNotFoundError extends ServiceError {
  readonly identifier = 'video_not_found';
  constructor(id: string) {
    super(`No video found with id '${echoed(id)}'.`, 'video_id');
  }
}
/** Content of a video that is not `completed`: still on its way (poll), or failed (it never will be). */
export class VideoNotReadyError extends ServiceError {
  readonly identifier = 'video_not_ready';
  constructor(id: string, failed = false) {
    super(
      failed
        ? `Video '${echoed(id)}' failed, so it has no content; the 'error' field of GET /v1/videos/${echoed(id)} says why.`
        : `Video '${echoed(id)}' is not completed yet; poll GET /v1/videos/${echoed(id)}.`,
      'video_id',
    );
  }
}
export class PayloadTooLargeError extends ServiceError {
  readonly identifier = 'payload_too_large';
}
export class RateLimitExceededError extends ServiceError {
  readonly identifier = 'rate_limit_exceeded';
  constructor(readonly retryAfterSeconds: number) {
    super(`Rate limit reached for this API key; retry in ${retryAfterSeconds} s.`);
  }
}
/**
 * A key already has its maximum of large transfers in progress (SVC_MAX_LARGE_BODIES_PER_KEY): request
 * bodies over 1 MiB (inline media, uploads) and media URLs the server downloads for it. Each holds its
 * bytes two or three times over while it is read, parsed and decoded; without a cap one key's burst
 * (the rate limit admits 100 at once) held gigabytes.
 */
export class LargeBodyLimitError extends ServiceError {
  readonly identifier = 'concurrency_limit_exceeded';
  readonly retryAfterSeconds = 1;
  constructor(max: number) {
    super(
      `This API key already has ${max} large bodies in progress (request bodies over 1 MiB, inline media or uploads, and media URLs the server is downloading), its limit; retry when one of them has ended.`,
    );
  }
}
export class InsufficientQuotaError extends ServiceError {
  readonly identifier = 'insufficient_quota';
}

// ---- the server's fault --------------------------------------------------------------------------------------
export class NotImplementedYetError extends ServiceError {
  readonly identifier = 'not_implemented';
  override readonly serverFault = true;
}
export class EngineError extends ServiceError {
  readonly identifier = 'engine_error';
  override readonly serverFault = true;
  /**
   * What actually failed, for the log only: engine output, file paths, errno text. The message is
   * what the caller sees and says in plain words what failed and what they can do.
   */
  readonly detail: string | null;
  constructor(message: string, detail: string | null = null) {
    super(message);
    this.detail = detail;
  }
}
/**
 * A dependency the request needs (the database, Redis) does not answer right now: the request did
 * nothing and may be retried. `dependency` names it for the log and the message; the client sees a
 * 503 `service_unavailable` (REST) or an `error` event with that code (realtime).
 */
export class ServiceUnavailableError extends ServiceError {
  readonly identifier = 'service_unavailable';
  override readonly serverFault = true;
  constructor(
    readonly dependency: string,
    message = `The service is temporarily unavailable (its ${dependency} does not answer); retry shortly.`,
  ) {
    super(message);
  }
}
/**
 * A request the service refused by its rules (a full conversation, an unknown voice, a damaged
 * file): the caller is told, and the log records it at info. Anything else that fails (an engine,
 * a dependency, a bug) is the server's and is logged as a warning or an error.
 */
export function isRefusal(err: unknown): err is ServiceError {
  return err instanceof ServiceError && !err.serverFault;
}

/** A concrete ServiceError class (the key of each transport's mapping table). */
export type ServiceErrorClass = abstract new (...args: any[]) => ServiceError;

/** Any thrown value as a ServiceError: unknown failures become a 500 that reveals nothing internal. */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  return new InternalError();
}
export class InternalError extends ServiceError {
  readonly identifier = 'internal_error';
  override readonly serverFault = true;
  constructor(message = 'The server had an error while processing your request.') {
    super(message);
  }
}
