import {
  ConflictingVoiceError,
  EmptyMediaError,
  EngineError,
  ImageDimensionsTooLargeError,
  InputEmptyError,
  InputTtsStreamUnsupportedError,
  InputTtsTooLongError,
  DrivingAudioTooLongError,
  InvalidImageError,
  InvalidVideoModelError,
  InvalidVideoSizeError,
  InvalidVideoVariantError,
  LiveVideoLimitError,
  LargeBodyLimitError,
  VideoBacklogLimitError,
  VideoInputConflictError,
  VideoInputMissingError,
  InputTooLongError,
  InsufficientQuotaError,
  InternalError,
  InvalidApiKeyError,
  InvalidAudioError,
  InvalidInlineMediaError,
  InvalidJsonError,
  InvalidLanguageTagError,
  ModelNotFoundError,
  VoiceLanguageUnsupportedError,
  NothingToSpeakError,
  RequestHeaderTooLargeError,
  RequestTimeoutError,
  InvalidMediaUrlError,
  InvalidParameterError,
  InvalidRequestError,
  MediaFetchFailedError,
  MediaFetchTimeoutError,
  MediaTooLargeError,
  MediaUrlNotAllowedError,
  MissingParameterError,
  NoFaceDetectedError,
  NotFoundError,
  NotImplementedYetError,
  PayloadTooLargeError,
  RateLimitExceededError,
  RealtimeError,
  ServiceUnavailableError,
  ReferenceAudioSilentError,
  ReferenceAudioTooLongError,
  TranscriptionLanguageUnsupportedError,
  TranscriptionUnavailableError,
  ReferenceAudioTooShortError,
  ServiceError,
  StreamFormatError,
  UnknownParameterError,
  VideoNotFoundError,
  VideoNotReadyError,
  VoiceNotDeletableError,
  VoiceNotFoundError,
  VoiceLimitError,
  InvalidSdpOfferError,
  RealtimeCallNotFoundError,
  RealtimeCallNotRingingError,
  RealtimeSessionActiveError,
  RealtimeCapacityError,
  type ServiceErrorClass,
} from '@svc/core';

/**
 * THE table of HTTP statuses: every ServiceError class of the core, one row each (a test fails for
 * a class without one). A class not listed answers 500. A new core error is one row here.
 */
export const HTTP_STATUS = new Map<ServiceErrorClass, number>([
  // 400: the request itself is wrong
  [InvalidRequestError, 400],
  [InvalidJsonError, 400],
  [UnknownParameterError, 400],
  [MissingParameterError, 400],
  [InvalidParameterError, 400],
  [InputTooLongError, 400],
  [InputEmptyError, 400],
  [StreamFormatError, 400],
  [ConflictingVoiceError, 400],
  [TranscriptionLanguageUnsupportedError, 400],
  [InvalidAudioError, 400],
  [InvalidMediaUrlError, 400],
  [MediaFetchFailedError, 400],
  [MediaUrlNotAllowedError, 400],
  [MediaFetchTimeoutError, 400],
  [InvalidInlineMediaError, 400],
  [EmptyMediaError, 400],
  [ReferenceAudioTooShortError, 400],
  [ReferenceAudioTooLongError, 400],
  [TranscriptionUnavailableError, 503],
  [ReferenceAudioSilentError, 400],
  [NoFaceDetectedError, 400],
  [VideoInputConflictError, 400],
  [VideoInputMissingError, 400],
  [InvalidVideoSizeError, 400],
  [InvalidVideoModelError, 400],
  [InvalidImageError, 400],
  [ImageDimensionsTooLargeError, 400],
  [DrivingAudioTooLongError, 400],
  [InputTtsTooLongError, 400],
  [InputTtsStreamUnsupportedError, 400],
  [InvalidVideoVariantError, 400],
  [NothingToSpeakError, 400],
  [InvalidLanguageTagError, 400],
  [VoiceLanguageUnsupportedError, 400],
  [RealtimeError, 400],
  [InvalidSdpOfferError, 400],
  // 401 / 403 / 404
  [InvalidApiKeyError, 401],
  [VoiceNotDeletableError, 403],
  [NotFoundError, 404],
  [VoiceNotFoundError, 404],
  [ModelNotFoundError, 404],
  [VideoNotFoundError, 404],
  [VideoNotReadyError, 404],
  [RealtimeCallNotFoundError, 404],
  [RequestTimeoutError, 408],
  // 409: the ephemeral key's one session is live (WebSocket: close 4009)
  [RealtimeSessionActiveError, 409],
  // 409: a phone call accepted or rejected twice
  [RealtimeCallNotRingingError, 409],
  // 413 / 429
  [PayloadTooLargeError, 413],
  [MediaTooLargeError, 413],
  [RateLimitExceededError, 429],
  [LiveVideoLimitError, 429],
  [VideoBacklogLimitError, 429],
  [LargeBodyLimitError, 429],
  // A key at its cap of stored voices: no Retry-After (deleting a voice frees a place, time does not)
  [VoiceLimitError, 429],
  // The realtime session caps (WebSocket: close 1013)
  [RealtimeCapacityError, 429],
  [RequestHeaderTooLargeError, 431],
  [InsufficientQuotaError, 429],
  // 5xx: the server's fault
  [InternalError, 500],
  [EngineError, 500],
  [NotImplementedYetError, 501],
  [ServiceUnavailableError, 503],
]);

/** A 4xx raised by Koa or a body reader rather than by a use case (its status comes from the library). */
export class HttpLibraryError extends ServiceError {
  constructor(
    readonly identifier: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The status of an error: its class's row (or its nearest listed ancestor's), otherwise 500. */
export function httpStatusOf(err: ServiceError): number {
  if (err instanceof HttpLibraryError) return err.status;
  for (let c: unknown = err.constructor; c && c !== ServiceError; c = Object.getPrototypeOf(c)) {
    const status = HTTP_STATUS.get(c as ServiceErrorClass);
    if (status !== undefined) return status;
  }
  return 500;
}

/** Response headers that carry part of an error's meaning (Retry-After of a rate or concurrency limit, or an outage). */
export function httpHeadersOf(err: ServiceError): Record<string, string> {
  if (
    err instanceof RateLimitExceededError ||
    err instanceof LiveVideoLimitError ||
    err instanceof VideoBacklogLimitError ||
    err instanceof LargeBodyLimitError ||
    err instanceof RealtimeCapacityError
  )
    return { 'Retry-After': String(err.retryAfterSeconds) };
  if (err instanceof ServiceUnavailableError) return { 'Retry-After': '1' };
  return {};
}
