/**
 * A media input as a request carries it: a string reference (http(s) URL, data URI or raw base64)
 * or the bytes of an uploaded file (multipart).
 */
export type MediaInput = string | Uint8Array;

export interface MediaFetchOptions {
  /** Request field the media came from, named in errors (`ref_audio`, `ref_image`, `input`). */
  param: string;
  /** What the media is, named in the inline size error (`image` or `audio`; default "media"). */
  kind?: 'image' | 'audio';
  /**
   * Whether the request could carry the file as a multipart upload instead (POST /v1/videos and
   * /v1/audio/voices can, a speech request or a session's photo cannot): the inline size error only
   * advises multipart where it exists. Default false.
   */
  uploadable?: boolean;
  /**
   * The API key the media is fetched for: a URL download counts against its large transfers in
   * progress (SVC_MAX_LARGE_BODIES_PER_KEY, LimitedDownloads). Absent (an embedder's own call): not counted.
   */
  apiKeyId?: string;
  signal?: AbortSignal;
}

/**
 * Turns a media input into bytes, enforcing the limits of the service: inline payloads up to
 * 10 MB, and for URLs the network rules (allowed schemes and addresses, redirects, timeout, size
 * cap while streaming). The bytes are returned unexamined: what they contain is decided from the
 * content by the decoder, never from a claimed type.
 */
export interface MediaFetcher {
  fetch(input: MediaInput, options: MediaFetchOptions): Promise<Uint8Array>;
  /**
   * The network rules of an http(s) URL alone, without connecting: its scheme, and that its host
   * resolves to addresses that may be fetched. Throws what `fetch` would for them
   * (media_url_not_allowed, invalid_media_url, media_fetch_failed for a host without an address).
   * A check made before committing to a fetch that comes later (which checks again and pins the
   * address it connects to). Optional: a fetcher without it checks nothing ahead.
   */
  checkUrl?(url: string, options: MediaFetchOptions): Promise<void>;
}

/** Inline media (base64 / data URI / uploaded file) cap of the spec. */
export const MAX_INLINE_MEDIA_SIZE = 10 * 1024 * 1024;
