import { assertSampleRate } from './sample-rate.js';
import { speex } from './speex-module.js';

/**
 * Quality 0..10 of the Speex resampler (its filter length). Streams take 4: the filter then holds back
 * at most 32 input samples, a few milliseconds of a live stream (stop band about 80 dB). Whole buffers
 * take 7: nothing waits on them, and the stop band is about 100 dB (so does the denoiser, whose
 * output the recognizer hears after two conversions).
 */
export const RESAMPLER_QUALITY = { stream: 4, buffer: 7 } as const;
/** Input samples per call into the WASM module: bounds the WASM heap used per call. */
const BLOCK = 1 << 16;

/**
 * A Speex state whose JavaScript owner was collected without close(): freed then, so that a stream
 * nobody closes (the realtime `Resampler` port has no close) does not leak WASM memory.
 */
const orphans = new FinalizationRegistry<number>((state) => speex._speex_resampler_destroy(state));

/**
 * The service's one resampler: converts mono PCM (int16, or float in [-1, 1)) at any integer rate to
 * float samples in [-1, 1) at `outputRate`, one chunk at a time, so a stream can be fed in pieces of any
 * size with the same result as in one piece; whole buffers go through `resampleBuffer`.
 *
 * The Speex resampler (WASM, `speex-module.ts`): the candidates' comparison (aliasing, tone fidelity,
 * CPU per second of audio) is in docs/benchmarks.md. Output n sits at input position
 * n * inputRate / outputRate: the filter starts centred on the first input sample (Speex's
 * skip_zeros), so output times map to input times by the rate ratio alone and no filter delay is
 * added (the filter only holds back the last few input samples until the samples after them arrive).
 */
export class StreamingResampler {
  private readonly inputRate: number;
  private readonly outputRate: number;
  /** The Speex state; 0 when the rates match (a plain copy) or after close(). */
  private state = 0;
  /** Input samples that fill the filter: fed as silence by end() to flush the held-back tail. */
  private readonly inputLatency: number = 0;
  private output = new Float32Array(4096);
  /** Input samples fed so far: end() makes the total output cover exactly their duration. */
  private consumed = 0;
  /** Samples returned so far. */
  private produced = 0;

  constructor(inputRate: number, outputRate: number, quality: number = RESAMPLER_QUALITY.stream) {
    assertSampleRate(inputRate);
    assertSampleRate(outputRate);
    this.inputRate = inputRate;
    this.outputRate = outputRate;
    if (inputRate === outputRate) return;
    const errPtr = speex._malloc(4);
    const state = speex._speex_resampler_init(1, inputRate, outputRate, quality, errPtr);
    const err = speex.HEAP32[errPtr >> 2]!;
    speex._free(errPtr);
    if (!state || err !== 0) throw new Error(`Speex resampler init failed (${inputRate} -> ${outputRate} Hz, code ${err}).`);
    this.state = state;
    this.inputLatency = speex._speex_resampler_get_input_latency(state);
    speex._speex_resampler_skip_zeros(state);
    orphans.register(this, state, this);
  }

  /**
   * Resamples the next chunk (int16 samples, or floats already in [-1, 1)). The returned view is
   * reused by the next call: copy it or consume it first.
   */
  process(chunk: Int16Array | Float32Array): Float32Array {
    this.consumed += chunk.length;
    const scale = chunk instanceof Int16Array ? 1 / 32768 : 1;
    if (this.inputRate === this.outputRate) {
      const out = this.outputBuffer(chunk.length);
      for (let i = 0; i < chunk.length; i++) out[i] = chunk[i]! * scale;
      this.produced += chunk.length;
      return out.subarray(0, chunk.length);
    }
    if (this.state === 0) throw new Error('StreamingResampler used after close().');
    return this.run(chunk, scale);
  }

  /**
   * The samples still held back for the filter (the stream's last few milliseconds), computed with
   * silence after the end, so that the whole output is ceil(inputs * outputRate / inputRate)
   * samples: a stream that ends (an upstream response) loses nothing. Call once, after the last chunk.
   */
  end(): Float32Array {
    if (this.inputRate === this.outputRate) return new Float32Array(0);
    const missing = Math.ceil((this.consumed * this.outputRate) / this.inputRate) - this.produced;
    if (missing <= 0) return new Float32Array(0);
    const counted = this.consumed;
    const silence = new Float32Array(this.inputLatency + Math.ceil((missing * this.inputRate) / this.outputRate) + 1);
    const tail = this.process(silence);
    this.consumed = counted;
    return tail.subarray(0, missing);
  }

  /** Frees the WASM state now (a resampler nobody closes is freed when it is collected). */
  close(): void {
    if (this.state === 0) return;
    orphans.unregister(this);
    speex._speex_resampler_destroy(this.state);
    this.state = 0;
  }

  private run(chunk: Int16Array | Float32Array, scale: number): Float32Array {
    const capacity = Math.ceil((Math.min(chunk.length, BLOCK) * this.outputRate) / this.inputRate) + 64;
    const out = this.outputBuffer(Math.ceil((chunk.length * this.outputRate) / this.inputRate) + 64);
    const inPtr = speex._malloc(Math.min(chunk.length, BLOCK) * 4);
    const outPtr = speex._malloc(capacity * 4);
    const lengths = speex._malloc(8);
    let written = 0;
    try {
      for (let read = 0; read < chunk.length;) {
        const n = Math.min(BLOCK, chunk.length - read);
        // HEAPF32 is read again after every call into the module: a heap that grew has a new view.
        const input = speex.HEAPF32.subarray(inPtr >> 2, (inPtr >> 2) + n);
        for (let i = 0; i < n; i++) input[i] = chunk[read + i]! * scale;
        speex.HEAP32[lengths >> 2] = n;
        speex.HEAP32[(lengths >> 2) + 1] = capacity;
        const code = speex._speex_resampler_process_float(this.state, 0, inPtr, lengths, outPtr, lengths + 4);
        if (code !== 0) throw new Error(`Speex resampler failed with code ${code}.`);
        const used = speex.HEAP32[lengths >> 2]!;
        const made = speex.HEAP32[(lengths >> 2) + 1]!;
        const from = outPtr >> 2;
        if (written + made > out.length) throw new Error('Speex resampler produced more samples than the rate ratio allows.');
        out.set(speex.HEAPF32.subarray(from, from + made), written);
        written += made;
        if (used === 0 && made === 0) break;
        read += used;
      }
    } finally {
      speex._free(inPtr);
      speex._free(outPtr);
      speex._free(lengths);
    }
    this.produced += written;
    return out.subarray(0, written);
  }

  private outputBuffer(size: number): Float32Array {
    if (size > this.output.length) this.output = new Float32Array(Math.max(size, this.output.length * 2));
    return this.output;
  }
}

/**
 * Converts a whole buffer (the stream in one piece plus its held-back tail) to exactly
 * round(n * outputRate / inputRate) float samples, aligned like the stream: timings measured on the
 * input scale by the rate ratio alone. A buffer already at `outputRate` comes back as floats unchanged.
 */
export function resampleBuffer(samples: Int16Array | Float32Array, inputRate: number, outputRate: number): Float32Array {
  const resampler = new StreamingResampler(inputRate, outputRate, RESAMPLER_QUALITY.buffer);
  try {
    const expected = Math.round((samples.length * outputRate) / inputRate);
    const out = new Float32Array(expected);
    const body = resampler.process(samples).subarray(0, expected);
    out.set(body);
    if (body.length < expected) out.set(resampler.end().subarray(0, expected - body.length), body.length);
    return out;
  } finally {
    resampler.close();
  }
}
