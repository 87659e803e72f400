/**
 * Injection tokens for ports shared by every capability. Plain symbols keep the core free of any
 * container library; apps/server binds them with inversify. Capability-specific tokens live in
 * each capability folder (speech/tokens.ts, voices/tokens.ts, realtime/tokens.ts ...).
 */
export const SHARED_TOKENS = {
  Clock: Symbol.for('svc.Clock'),
  IdGenerator: Symbol.for('svc.IdGenerator'),
  Hasher: Symbol.for('svc.Hasher'),
  Logger: Symbol.for('svc.Logger'),
  RateLimiter: Symbol.for('svc.RateLimiter'),
  ApiKeyRepository: Symbol.for('svc.ApiKeyRepository'),
  BlobStore: Symbol.for('svc.BlobStore'),
  /** Fetches media URLs on a caller's behalf (SSRF-safe); shared by voices and video. */
  MediaFetcher: Symbol.for('svc.MediaFetcher'),
} as const;
