export * from './errors.js';
export * from './media-fetcher.js';
export * from './inline-media.js';
export * from './limited-downloads.js';
export * from './image-header.js';
