import type { ApiKeyRepository } from '../auth/api-key.js';
import type { MediaFetcher } from '../media/media-fetcher.js';
import type { BlobStore } from './blob-store.js';
import type { Clock } from './clock.js';
import type { Hasher, IdGenerator } from './ids.js';
import type { Logger } from './logger.js';
import type { RateLimiter } from './rate-limiter.js';
import { token } from './token.js';

/**
 * Injection tokens for ports shared by every capability, each typed with its port (shared/token.ts).
 * Capability-specific tokens live in each capability folder (speech/tokens.ts, voices/tokens.ts,
 * realtime/tokens.ts ...).
 */
export const SHARED_TOKENS = {
  Clock: token<Clock>('svc.Clock'),
  IdGenerator: token<IdGenerator>('svc.IdGenerator'),
  Hasher: token<Hasher>('svc.Hasher'),
  Logger: token<Logger>('svc.Logger'),
  RateLimiter: token<RateLimiter>('svc.RateLimiter'),
  ApiKeyRepository: token<ApiKeyRepository>('svc.ApiKeyRepository'),
  BlobStore: token<BlobStore>('svc.BlobStore'),
  /** Fetches media URLs on a caller's behalf (SSRF-safe); shared by voices and video. */
  MediaFetcher: token<MediaFetcher>('svc.MediaFetcher'),
} as const;
