import RNNoise, { type RnnoiseModule } from '@echogarden/rnnoise-wasm';
import type { NoiseSuppressionStream, NoiseSuppressor } from '@svc/core';
import { FrameQueue } from '../vad/frame-queue.js';
import { RESAMPLER_QUALITY, StreamingResampler } from '@svc/adapters-runtime';

/** RNNoise's only rate and frame (10 ms at 48 kHz). */
const RNNOISE_RATE = 48000;
const RNNOISE_FRAME = 480;

/**
 * `noise_reduction` (near_field and far_field alike: RNNoise has one model) with RNNoise in WASM,
 * loaded once per process. Each session's stream resamples its input to 48 kHz, denoises 10 ms
 * frames and resamples back, returning exactly as many samples as it was given: the output is
 * delayed by a constant ~15 ms (the frame and the resamplers' look-ahead), so the buffer's clock,
 * and with it VAD times, stay aligned to the appended audio.
 */
export class RnnoiseNoiseSuppressor implements NoiseSuppressor {
  private constructor(private readonly module: RnnoiseModule) {}

  static async create(): Promise<RnnoiseNoiseSuppressor> {
    const module = await RNNoise();
    if (module._rnnoise_get_frame_size() !== RNNOISE_FRAME) throw new Error('Unexpected RNNoise frame size.');
    return new RnnoiseNoiseSuppressor(module);
  }

  open(sampleRate: number): NoiseSuppressionStream {
    return new RnnoiseStream(this.module, sampleRate);
  }
}

class RnnoiseStream implements NoiseSuppressionStream {
  private readonly up: StreamingResampler;
  private readonly down: StreamingResampler;
  private readonly frames = new FrameQueue(RNNOISE_FRAME);
  private readonly frame = new Float32Array(RNNOISE_FRAME);
  private state: number;
  private readonly heap: number;
  /** Denoised samples at the input rate, waiting to be returned. */
  private ready: Int16Array[] = [];
  private readyLength = 0;

  constructor(
    private readonly module: RnnoiseModule,
    sampleRate: number,
  ) {
    // Every sample goes through both conversions before the recognizer hears it: the whole-buffer
    // quality (the deeper stop band) keeps what the recognizer makes of denoised speech, for a few
    // milliseconds more held back.
    this.up = new StreamingResampler(sampleRate, RNNOISE_RATE, RESAMPLER_QUALITY.buffer);
    this.down = new StreamingResampler(RNNOISE_RATE, sampleRate, RESAMPLER_QUALITY.buffer);
    this.state = module._rnnoise_create(0);
    this.heap = module._malloc(RNNOISE_FRAME * 4);
  }

  process(samples: Int16Array): Int16Array {
    if (this.state === 0) throw new Error('The noise suppression stream is closed.');
    this.frames.write(this.up.process(samples));
    const m = this.module;
    const offset = this.heap >> 2;
    while (this.frames.readFrame(this.frame)) {
      // RNNoise works in int16 scale.
      for (let i = 0; i < RNNOISE_FRAME; i++) m.HEAPF32[offset + i] = this.frame[i]! * 32768;
      m._rnnoise_process_frame(this.state, this.heap, this.heap);
      const denoised = new Int16Array(RNNOISE_FRAME);
      for (let i = 0; i < RNNOISE_FRAME; i++) denoised[i] = clamp(m.HEAPF32[offset + i]!);
      const back = this.down.process(denoised);
      const out = new Int16Array(back.length);
      for (let i = 0; i < back.length; i++) out[i] = clamp(back[i]! * 32768);
      this.ready.push(out);
      this.readyLength += out.length;
    }
    return this.take(samples.length);
  }

  close(): void {
    if (this.state === 0) return;
    this.module._rnnoise_destroy(this.state);
    this.module._free(this.heap);
    this.state = 0;
  }

  /** Exactly `n` samples: silence first while the pipeline fills, then denoised audio. */
  private take(n: number): Int16Array {
    const out = new Int16Array(n);
    const missing = Math.max(0, n - this.readyLength);
    let at = missing;
    while (at < n) {
      const head = this.ready[0]!;
      const count = Math.min(head.length, n - at);
      out.set(head.subarray(0, count), at);
      at += count;
      if (count === head.length) this.ready.shift();
      else this.ready[0] = head.subarray(count);
      this.readyLength -= count;
    }
    return out;
  }
}

function clamp(v: number): number {
  const r = Math.round(v);
  return r > 32767 ? 32767 : r < -32768 ? -32768 : r;
}
