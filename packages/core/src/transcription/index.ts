export * from './transcript.js';
export * from './errors.js';
export * from './transcribe-audio.js';
export * from './live-transcription.js';
