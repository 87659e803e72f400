export * from './errors.js';
export * from './media-fetcher.js';
export * from './inline-media.js';
