/**
 * AudioWorklet processor (runs on the audio thread): mono input resampled by linear interpolation
 * from the context's rate to `targetRate`, converted to PCM16 and posted in `chunkMs` pieces with
 * their RMS level. Loaded by mic-capture.ts with audioWorklet.addModule().
 */
declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: { processorOptions?: unknown });
}
declare function registerProcessor(name: string, ctor: new (options: { processorOptions?: unknown }) => AudioWorkletProcessor): void;

interface CaptureOptions {
  targetRate: number;
  chunkMs: number;
}

class PcmCaptureProcessor extends AudioWorkletProcessor {
  private readonly ratio: number;
  private readonly out: Int16Array;
  private filled = 0;
  private sumSquares = 0;
  /** Position of the next output sample, in input samples relative to the current block (>= -1). */
  private t = 0;
  /** Last sample of the previous block (index -1 of the current one). */
  private last = 0;

  constructor(options: { processorOptions?: unknown }) {
    super(options);
    const o = options.processorOptions as CaptureOptions;
    this.ratio = sampleRate / o.targetRate;
    this.out = new Int16Array(Math.round((o.targetRate * o.chunkMs) / 1000));
  }

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    if (!input || input.length === 0) return true;
    const n = input.length;
    let t = this.t;
    while (t < n - 1) {
      const i = Math.floor(t);
      const f = t - i;
      const a = i < 0 ? this.last : input[i]!;
      const b = input[i + 1]!;
      this.emit(a + (b - a) * f);
      t += this.ratio;
    }
    this.t = t - n;
    this.last = input[n - 1]!;
    return true;
  }

  private emit(sample: number): void {
    const s = Math.max(-1, Math.min(1, sample));
    this.sumSquares += s * s;
    this.out[this.filled++] = s < 0 ? s * 0x8000 : s * 0x7fff;
    if (this.filled === this.out.length) {
      const chunk = this.out.slice();
      this.port.postMessage({ pcm: chunk.buffer, level: Math.sqrt(this.sumSquares / this.filled) }, [chunk.buffer]);
      this.filled = 0;
      this.sumSquares = 0;
    }
  }
}

registerProcessor('pcm-capture', PcmCaptureProcessor);
