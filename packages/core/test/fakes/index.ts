/**
 * The core's test fakes, in one place: in-memory stand-ins for every port, for the core's unit
 * tests (other packages' tests use real adapters). Import from here.
 */
export * from './fake-clock.js';
export * from './fake-ids.js';
export * from './fake-speech.js';
export * from './voice-fakes.js';

export * from './realtime-fakes.js';
export * from './seeded-noise.js';
