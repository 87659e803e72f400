export { SafeHttpMediaFetcher, type SafeHttpMediaFetcherOptions } from './safe-http-media-fetcher.js';
export { AddressPolicy } from './address-policy.js';
