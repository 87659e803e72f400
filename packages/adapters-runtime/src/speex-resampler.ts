import InitSpeexResampler, { type SpeexResamplerModule } from '@echogarden/speex-resampler-wasm';

/** Quality 0..10 of the Speex resampler; 7 is transparent for speech at a negligible cost. */
const DEFAULT_QUALITY = 7;
/** Samples per process call: bounds the WASM heap used per call. */
const BLOCK = 1 << 16;

/**
 * Whole-buffer sample-rate conversion with the Speex resampler (BSD, WASM). One instance (one WASM
 * module) serves any number of conversions; each call creates and destroys its own resampler state,
 * so calls are independent. JavaScript is single-threaded, so calls cannot interleave. The engine
 * adapters run it inside their worker threads: a long speech takes long enough to resample that it
 * would otherwise stall the server's event loop.
 */
export class SpeexResampler {
  private constructor(
    private readonly m: SpeexResamplerModule,
    private readonly quality: number,
  ) {}

  /** Loads the WASM SIMD build (several times faster), or the plain build where SIMD is unavailable. */
  static async create(quality = DEFAULT_QUALITY): Promise<SpeexResampler> {
    let module: SpeexResamplerModule;
    try {
      const simd = await import('@echogarden/speex-resampler-wasm/simd');
      module = await simd.default();
    } catch {
      module = await InitSpeexResampler();
    }
    return new SpeexResampler(module, quality);
  }

  /**
   * Converts mono int16 `samples` from `fromRate` to `toRate` (integer rates, rounded). The output
   * has exactly round(n * toRate / fromRate) samples and no leading filter delay, so timings measured
   * on the input scale by the rate ratio alone.
   */
  resample(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
    const inRate = Math.round(fromRate);
    const outRate = Math.round(toRate);
    if (inRate === outRate || samples.length === 0) return samples;
    const expected = Math.round((samples.length * outRate) / inRate);
    const m = this.m;

    const errPtr = m._malloc(4);
    const state = m._speex_resampler_init(1, inRate, outRate, this.quality, errPtr);
    const err = m.HEAP32[errPtr >> 2]!;
    m._free(errPtr);
    if (!state || err !== 0) throw new Error(`Speex resampler init failed (${inRate} -> ${outRate} Hz, code ${err}).`);

    // The filter delays its output by `outputLatency` samples; feeding `inputLatency` zeros after
    // the signal flushes the tail, then the first `outputLatency` output samples are dropped.
    const inputLatency = m._speex_resampler_get_input_latency(state);
    const outputLatency = m._speex_resampler_get_output_latency(state);
    const padded = new Int16Array(samples.length + inputLatency);
    padded.set(samples);

    const maxOut = Math.ceil((BLOCK * outRate) / inRate) + 64;
    const inPtr = m._malloc(BLOCK * 2);
    const outPtr = m._malloc(maxOut * 2);
    const inLenPtr = m._malloc(4);
    const outLenPtr = m._malloc(4);
    const out = new Int16Array(expected + outputLatency + maxOut);
    let written = 0;
    try {
      for (let read = 0; read < padded.length;) {
        const n = Math.min(BLOCK, padded.length - read);
        m.HEAP16.set(padded.subarray(read, read + n), inPtr >> 1);
        m.HEAP32[inLenPtr >> 2] = n;
        m.HEAP32[outLenPtr >> 2] = maxOut;
        const code = m._speex_resampler_process_int(state, 0, inPtr, inLenPtr, outPtr, outLenPtr);
        if (code !== 0) throw new Error(`Speex resampler failed with code ${code}.`);
        const consumed = m.HEAP32[inLenPtr >> 2]!;
        const produced = m.HEAP32[outLenPtr >> 2]!;
        // HEAP16 is re-read after each call: the heap may have grown and replaced the view.
        out.set(m.HEAP16.subarray(outPtr >> 1, (outPtr >> 1) + produced), written);
        written += produced;
        if (consumed === 0 && produced === 0) break;
        read += consumed;
      }
    } finally {
      m._free(inPtr);
      m._free(outPtr);
      m._free(inLenPtr);
      m._free(outLenPtr);
      m._speex_resampler_destroy(state);
    }
    const result = new Int16Array(expected);
    result.set(out.subarray(outputLatency, Math.min(written, outputLatency + expected)));
    return result;
  }
}
