export * from './data-source.js';
export * from './auth/index.js';
export { FileSystemBlobStore } from './blob/filesystem-blob-store.js';
export { InMemoryApiKeyRepository } from './memory/in-memory-api-key-repository.js';
export { TokenBucketRateLimiter } from './rate-limit/token-bucket-rate-limiter.js';
export * from './voices/index.js';
export * from './realtime/index.js';
export * from './video/index.js';
