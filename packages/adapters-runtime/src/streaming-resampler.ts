import { assertSampleRate } from './sample-rate.js';

/** Zero crossings of the sinc on each side of the centre: ~-70 dB stop band with the Blackman window. */
const ZERO_CROSSINGS = 16;
/** Cutoff as a fraction of the lower Nyquist frequency: leaves room for the transition band. */
const ROLL_OFF = 0.9;

/**
 * Converts mono int16 PCM at any integer rate to float samples in [-1, 1) at `outputRate`, one chunk
 * at a time, so a stream can be fed in pieces of any size with the same result as in one piece.
 *
 * A polyphase windowed-sinc filter (rational ratio up/down): output n sits at input position
 * n * down / up, so output times map to input times by the rate ratio alone (no filter delay is
 * added to the timeline; the filter only holds back the last few input samples until the samples
 * after them arrive). Pure JavaScript rather than the Speex WASM resampler because a stream's state
 * then needs no explicit free: the port's `close()` is optional.
 */
export class StreamingResampler {
  private readonly up: number;
  private readonly down: number;
  /** Input samples used on each side of an output position. */
  private readonly halfTaps: number;
  /** `up` rows of 2 * halfTaps weights, one row per fractional position. */
  private readonly weights: Float32Array;
  private readonly passthrough: boolean;
  /** Input samples still needed, as floats; history[0] is absolute input index historyStart. */
  private history = new Float32Array(4096);
  private historyLength = 0;
  private historyStart = 0;
  private nextOutput = 0;
  private output = new Float32Array(4096);
  /** Input samples fed so far: end() makes the total output cover exactly their duration. */
  private consumed = 0;

  constructor(inputRate: number, outputRate: number) {
    assertSampleRate(inputRate);
    assertSampleRate(outputRate);
    const common = gcd(inputRate, outputRate);
    this.up = outputRate / common;
    this.down = inputRate / common;
    this.passthrough = inputRate === outputRate;
    const cutoff = Math.min(1, this.up / this.down) * ROLL_OFF;
    this.halfTaps = this.passthrough ? 0 : Math.ceil(ZERO_CROSSINGS / cutoff);
    this.weights = this.passthrough ? new Float32Array(0) : polyphaseWeights(this.up, this.halfTaps, cutoff);
    // Input before the stream started is silence: the first outputs see zeros on their left.
    this.historyLength = this.halfTaps;
    this.historyStart = -this.halfTaps;
  }

  /** Resamples the next chunk. The returned view is reused by the next call: copy it or consume it first. */
  process(chunk: Int16Array): Float32Array {
    this.consumed += chunk.length;
    if (this.passthrough) {
      const out = this.outputBuffer(chunk.length);
      for (let i = 0; i < chunk.length; i++) out[i] = chunk[i]! / 32768;
      return out.subarray(0, chunk.length);
    }
    this.append(chunk);
    const { up, down, halfTaps, weights, history } = this;
    const taps = 2 * halfTaps;
    const inputEnd = this.historyStart + this.historyLength;
    const out = this.outputBuffer(Math.ceil((this.historyLength * up) / down) + 2);
    let produced = 0;
    for (;;) {
      const position = this.nextOutput * down;
      const left = Math.floor(position / up);
      // Needs input samples left - halfTaps + 1 .. left + halfTaps.
      if (left + halfTaps >= inputEnd) break;
      const row = (position - left * up) * taps;
      const first = left - halfTaps + 1 - this.historyStart;
      let sum = 0;
      for (let k = 0; k < taps; k++) sum += history[first + k]! * weights[row + k]!;
      out[produced++] = sum;
      this.nextOutput++;
    }
    this.dropUnneededHistory();
    return out.subarray(0, produced);
  }

  /**
   * The samples still held back for the filter (the stream's last few milliseconds), computed with
   * silence after the end, so that the whole output is ceil(inputs * outputRate / inputRate)
   * samples: a stream that ends (an upstream response) loses nothing. Call once, after the last chunk.
   */
  end(): Float32Array {
    if (this.passthrough) return new Float32Array(0);
    const total = Math.ceil((this.consumed * this.up) / this.down);
    const missing = total - this.nextOutput;
    if (missing <= 0) return new Float32Array(0);
    const counted = this.consumed;
    const tail = this.process(new Int16Array(this.halfTaps + Math.ceil((missing * this.down) / this.up) + 1));
    this.consumed = counted;
    return tail.subarray(0, missing);
  }

  private append(chunk: Int16Array): void {
    const needed = this.historyLength + chunk.length;
    if (needed > this.history.length) {
      const grown = new Float32Array(Math.max(needed, this.history.length * 2));
      grown.set(this.history.subarray(0, this.historyLength));
      this.history = grown;
    }
    const h = this.history;
    for (let i = 0, j = this.historyLength; i < chunk.length; i++, j++) h[j] = chunk[i]! / 32768;
    this.historyLength = needed;
  }

  private dropUnneededHistory(): void {
    const firstNeeded = Math.floor((this.nextOutput * this.down) / this.up) - this.halfTaps + 1;
    const drop = Math.min(this.historyLength, Math.max(0, firstNeeded - this.historyStart));
    if (drop === 0) return;
    this.history.copyWithin(0, drop, this.historyLength);
    this.historyLength -= drop;
    this.historyStart += drop;
  }

  private outputBuffer(size: number): Float32Array {
    if (size > this.output.length) this.output = new Float32Array(Math.max(size, this.output.length * 2));
    return this.output;
  }
}

/**
 * Row r holds the weights of input samples left - halfTaps + 1 .. left + halfTaps for an output at
 * fractional position left + r / up. Each row is normalised to a sum of 1 so that DC passes unchanged
 * at every phase (no ripple pattern at the output rate).
 */
function polyphaseWeights(up: number, halfTaps: number, cutoff: number): Float32Array {
  const taps = 2 * halfTaps;
  const weights = new Float32Array(up * taps);
  for (let r = 0; r < up; r++) {
    let sum = 0;
    for (let k = 0; k < taps; k++) {
      // Distance from the output position to input sample left - halfTaps + 1 + k.
      const t = r / up + halfTaps - 1 - k;
      const w = cutoff * sinc(cutoff * t) * blackman(t / halfTaps);
      weights[r * taps + k] = w;
      sum += w;
    }
    for (let k = 0; k < taps; k++) weights[r * taps + k] /= sum;
  }
  return weights;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

/** Blackman window over x in [-1, 1], zero outside. */
function blackman(x: number): number {
  if (Math.abs(x) >= 1) return 0;
  return 0.42 + 0.5 * Math.cos(Math.PI * x) + 0.08 * Math.cos(2 * Math.PI * x);
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
