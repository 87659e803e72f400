import type { SpeexResamplerModule } from '@echogarden/speex-resampler-wasm';

/**
 * Chunk-by-chunk sample-rate conversion with one Speex state kept across chunks, for audio that
 * arrives in pieces (an upstream server's response): no seams between chunks. Like the whole-buffer
 * resampler, the filter delay is removed, so the total output is round(n * to / from) samples.
 * end() (or close()) must be called: it frees the WASM state.
 */
export class SpeexStreamResampler {
  private state: number;
  private readonly inputLatency: number;
  private toDrop: number;
  private consumedIn = 0;
  private producedOut = 0;

  constructor(
    private readonly m: SpeexResamplerModule,
    private readonly inRate: number,
    private readonly outRate: number,
    quality: number,
  ) {
    const errPtr = m._malloc(4);
    this.state = m._speex_resampler_init(1, inRate, outRate, quality, errPtr);
    const err = m.HEAP32[errPtr >> 2]!;
    m._free(errPtr);
    if (!this.state || err !== 0) throw new Error(`Speex resampler init failed (${inRate} -> ${outRate} Hz, code ${err}).`);
    this.inputLatency = m._speex_resampler_get_input_latency(this.state);
    this.toDrop = m._speex_resampler_get_output_latency(this.state);
  }

  push(samples: Int16Array): Int16Array {
    this.consumedIn += samples.length;
    return this.process(samples, Infinity);
  }

  /** The rest of the audio (the filter's tail), then the state is freed. */
  end(): Int16Array {
    if (!this.state) return new Int16Array(0);
    const expected = Math.round((this.consumedIn * this.outRate) / this.inRate);
    const tail = this.process(new Int16Array(this.inputLatency), expected - this.producedOut);
    this.close();
    return tail;
  }

  close(): void {
    if (this.state) this.m._speex_resampler_destroy(this.state);
    this.state = 0;
  }

  /** Feeds `input`, returns up to `limit` new output samples after the dropped filter delay. */
  private process(input: Int16Array, limit: number): Int16Array {
    if (!this.state) throw new Error('the stream resampler is closed');
    const m = this.m;
    const maxOut = Math.ceil((input.length * this.outRate) / this.inRate) + 64;
    const inPtr = m._malloc(Math.max(2, input.length * 2));
    const outPtr = m._malloc(maxOut * 2);
    const lens = m._malloc(8);
    const parts: Int16Array[] = [];
    try {
      for (let read = 0; read < input.length; ) {
        m.HEAP16.set(input.subarray(read), inPtr >> 1);
        m.HEAP32[lens >> 2] = input.length - read;
        m.HEAP32[(lens >> 2) + 1] = maxOut;
        const code = m._speex_resampler_process_int(this.state, 0, inPtr, lens, outPtr, lens + 4);
        if (code !== 0) throw new Error(`Speex resampler failed with code ${code}.`);
        const consumed = m.HEAP32[lens >> 2]!;
        const produced = m.HEAP32[(lens >> 2) + 1]!;
        parts.push(m.HEAP16.slice(outPtr >> 1, (outPtr >> 1) + produced));
        if (consumed === 0 && produced === 0) break;
        read += consumed;
      }
    } finally {
      m._free(inPtr);
      m._free(outPtr);
      m._free(lens);
    }
    let out = concat(parts);
    const drop = Math.min(this.toDrop, out.length);
    this.toDrop -= drop;
    out = out.subarray(drop);
    if (out.length > limit) out = out.subarray(0, Math.max(0, limit));
    this.producedOut += out.length;
    return out;
  }
}

function concat(parts: Int16Array[]): Int16Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
