import { Tensor, type InferenceSession } from 'onnxruntime-node';
import { int16ToFloat, loadVoiceModelSession, resampleBuffer, throwIfAborted } from '@svc/adapters-runtime';
import type { EndOfTurnModel } from '@svc/core';
import { WhisperLogMel } from '../asr/features/whisper-log-mel.js';

/**
 * Smart Turn v3's input, as its published inference code prepares it: the last 8 s of 16 kHz mono
 * audio (shorter audio padded with zeros in FRONT, so the turn's end is always at the window's
 * end), normalized to zero mean and unit variance over the whole window, then Whisper's log-mel
 * features of an 8 s window: `input_features` [1, 80, 800]. Its one output is the probability that
 * the turn is complete (a sigmoid, shape [1, 1]).
 */
export const SMART_TURN = { sampleRate: 16000, windowSeconds: 8, melBins: 80, input: 'input_features' } as const;
const WINDOW_SAMPLES = SMART_TURN.sampleRate * SMART_TURN.windowSeconds;

/** The 8 s window of `samples` (16 kHz floats): their last 8 s, zero-padded in front, zero mean and unit variance. */
export function smartTurnWindow(samples: Float32Array): Float32Array {
  const window = new Float32Array(WINDOW_SAMPLES);
  const kept = samples.subarray(Math.max(0, samples.length - WINDOW_SAMPLES));
  window.set(kept, WINDOW_SAMPLES - kept.length);
  let mean = 0;
  for (const v of window) mean += v;
  mean /= window.length;
  let variance = 0;
  for (const v of window) variance += (v - mean) * (v - mean);
  variance /= window.length;
  const scale = 1 / Math.sqrt(variance + 1e-7);
  for (let i = 0; i < window.length; i++) window[i] = (window[i]! - mean) * scale;
  return window;
}

export interface SmartTurnOptions {
  /** The probability from which a turn counts as finished (default 0.5, the model's own). */
  threshold?: number;
  /** onnxruntime intra-op threads (default 1: a judgement is short, sessions' judgements queue). */
  threads?: number;
}

/**
 * The EndOfTurnModel port on a Smart Turn v3 ONNX export (`models pull smart-turn-v3.2`, or any
 * file with its input and output): one onnxruntime session per process, shared by all sessions.
 * Its input name is checked when it loads, so another model fails at start, not at a user's pause.
 */
export class SmartTurnModel implements EndOfTurnModel {
  readonly contextMs = SMART_TURN.windowSeconds * 1000;
  private readonly features = new WhisperLogMel(SMART_TURN.melBins, SMART_TURN.windowSeconds);

  private constructor(
    private readonly session: InferenceSession,
    readonly threshold: number,
  ) {}

  static async load(modelPath: string, options: SmartTurnOptions = {}): Promise<SmartTurnModel> {
    const session = await loadVoiceModelSession(modelPath, options.threads ?? 1);
    if (!session.inputNames.includes(SMART_TURN.input) || session.outputNames.length === 0) {
      await session.release();
      throw new Error(
        `${modelPath} is not a Smart Turn v3 model: it takes ${session.inputNames.join(', ') || 'no input'}, not ${SMART_TURN.input} [1, ${SMART_TURN.melBins}, ${WINDOW_SAMPLES / 160}]`,
      );
    }
    return new SmartTurnModel(session, options.threshold ?? 0.5);
  }

  async finishedProbability(samples: Int16Array, sampleRate: number, signal: AbortSignal): Promise<number> {
    const at16k = sampleRate === SMART_TURN.sampleRate ? int16ToFloat(samples) : resampleBuffer(samples, sampleRate, SMART_TURN.sampleRate);
    const features = this.features.compute(smartTurnWindow(at16k));
    throwIfAborted(signal);
    const input = new Tensor('float32', features, [1, SMART_TURN.melBins, this.features.frames]);
    const output = await this.session.run({ [SMART_TURN.input]: input });
    const probability = Number(output[this.session.outputNames[0]!]!.data[0]);
    if (!Number.isFinite(probability)) throw new Error(`the end-of-turn model answered ${probability}, not a probability`);
    return probability;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
