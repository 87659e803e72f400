import { RB_OPTIONS, type RubberbandApi } from './rubberband-module.js';

const BLOCK = 1024;

/** WASM memory of a shifter that was dropped without flush() (client went away mid-stream). */
const abandoned = new FinalizationRegistry<() => void>((release) => release());

/**
 * Streaming pitch and formant shift with Rubber Band's R3 ("finer") engine in real-time mode.
 * Duration is preserved exactly: the engine's start delay is discarded at the beginning, and
 * flush() pads or trims so the total output length equals the total input length. Output of a
 * chunk lags its input by the engine latency (~40 ms); the remainder comes with the next chunk.
 */
export class RubberbandShifter {
  private state: number;
  private readonly inBuffer: number;
  private readonly inChannels: number;
  private readonly outBuffer: number;
  private readonly outChannels: number;
  private toDiscard: number;
  private inputTotal = 0;
  private outputTotal = 0;
  /** Retrieved output not yet handed out (the engine may run a few samples ahead of the input). */
  private pending: Float32Array[] = [];
  private readonly release: () => void;

  constructor(
    private readonly api: RubberbandApi,
    sampleRate: number,
    pitchScale: number,
    formantScale: number,
  ) {
    // R3 standard window: the short window is cheaper but coarser on low male voices.
    const options = RB_OPTIONS.processRealTime | RB_OPTIONS.engineFiner | RB_OPTIONS.formantPreserved | RB_OPTIONS.threadingNever;
    const state = api._rubberband_new(sampleRate, 1, options, 1, 1);
    api._rubberband_set_max_process_size(state, BLOCK);
    api._rubberband_set_pitch_scale(state, pitchScale);
    // Rubber Band's formant scale is relative to the pitch-shifted signal (1/pitchScale = preserved),
    // so the envelope moves by exactly `formantScale` relative to the input.
    api._rubberband_set_formant_scale(state, formantScale / pitchScale);
    const inBuffer = api._malloc(BLOCK * 4);
    const inChannels = api._malloc(4);
    const outBuffer = api._malloc(BLOCK * 4);
    const outChannels = api._malloc(4);
    api.HEAPU32[inChannels >> 2] = inBuffer;
    api.HEAPU32[outChannels >> 2] = outBuffer;
    this.state = state;
    this.inBuffer = inBuffer;
    this.inChannels = inChannels;
    this.outBuffer = outBuffer;
    this.outChannels = outChannels;
    this.release = () => {
      api._rubberband_delete(state);
      for (const p of [inBuffer, inChannels, outBuffer, outChannels]) api._free(p);
    };
    abandoned.register(this, this.release, this);
    this.toDiscard = api._rubberband_get_start_delay(state);
    // Priming with the preferred pad lets the first real samples come out at full quality.
    this.feed(new Float32Array(api._rubberband_get_preferred_start_pad(state)), false, []);
  }

  process(input: Float32Array): Float32Array {
    this.assertOpen();
    this.inputTotal += input.length;
    this.feed(input, false, this.pending);
    return this.take(this.inputTotal);
  }

  /** The rest of the output, exactly as much as makes the total length equal the input's. Frees the engine. */
  flush(): Float32Array {
    this.assertOpen();
    // The tail still inside the engine is pushed out by a final block of silence.
    this.feed(new Float32Array(BLOCK), true, this.pending);
    const tail = this.take(this.inputTotal);
    const missing = this.inputTotal - this.outputTotal;
    const result = missing > 0 ? concat([tail, new Float32Array(missing)]) : tail;
    this.outputTotal += Math.max(0, missing);
    this.dispose();
    return result;
  }

  dispose(): void {
    if (this.state === 0) return;
    abandoned.unregister(this);
    this.release();
    this.state = 0;
  }

  private feed(input: Float32Array, final: boolean, out: Float32Array[]): void {
    const api = this.api;
    for (let offset = 0; offset < input.length || (final && offset === 0); offset += BLOCK) {
      const n = Math.min(BLOCK, input.length - offset);
      api.HEAPF32.set(input.subarray(offset, offset + n), this.inBuffer >> 2);
      const last = final && offset + n >= input.length;
      api._rubberband_process(this.state, this.inChannels, n, last ? 1 : 0);
      this.drain(out);
      if (n === 0) break;
    }
  }

  private drain(out: Float32Array[]): void {
    const api = this.api;
    for (let available = api._rubberband_available(this.state); available > 0; available = api._rubberband_available(this.state)) {
      const got = api._rubberband_retrieve(this.state, this.outChannels, Math.min(available, BLOCK));
      if (got <= 0) break;
      // HEAPF32 may be replaced when WASM memory grows: read it after the call.
      let chunk = api.HEAPF32.slice(this.outBuffer >> 2, (this.outBuffer >> 2) + got);
      if (this.toDiscard > 0) {
        const skip = Math.min(this.toDiscard, chunk.length);
        this.toDiscard -= skip;
        chunk = chunk.subarray(skip);
      }
      if (chunk.length > 0) out.push(chunk);
    }
  }

  /** Hands out pending output, never letting the total run ahead of the input; keeps the excess. */
  private take(limit: number): Float32Array {
    const all = concat(this.pending);
    const allowed = Math.max(0, Math.min(all.length, limit - this.outputTotal));
    this.outputTotal += allowed;
    this.pending = allowed < all.length ? [all.slice(allowed)] : [];
    return all.subarray(0, allowed);
  }

  private assertOpen(): void {
    if (this.state === 0) throw new Error('RubberbandShifter used after flush/dispose');
  }
}

function length(parts: Float32Array[]): number {
  return parts.reduce((n, p) => n + p.length, 0);
}

function concat(parts: Float32Array[]): Float32Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Float32Array(length(parts));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
