// Moved to test/fakes (the one home of the core's test fakes); this path keeps older imports working.
export * from '../fakes/voice-fakes.js';
