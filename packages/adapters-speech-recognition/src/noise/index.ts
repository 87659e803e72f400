// Input noise reduction: RNNoise (WASM) for the realtime `noise_reduction` setting.
export { RnnoiseNoiseSuppressor } from './rnnoise-noise-suppressor.js';
