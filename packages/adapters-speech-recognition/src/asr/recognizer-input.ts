/** The only rate pocketsphinx's en-us acoustic model takes; other input rates are resampled to it. */
export const RECOGNIZER_SAMPLE_RATE = 16000;

export { floatToInt16 } from '@svc/adapters-runtime';
