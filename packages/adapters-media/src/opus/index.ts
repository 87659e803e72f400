// Opus for the realtime API's `audio/opus` formats: libopus in WASM (the `opusscript` package).
export { OpusscriptOpusCodec, OPUS_FRAME_SIZES_MS } from './opusscript-opus-codec.js';
export { OpusFrameEncoder } from './opus-frame-encoder.js';
export { liveOpusStates, OPUS_SAMPLE_RATE } from './opusscript-native.js';
