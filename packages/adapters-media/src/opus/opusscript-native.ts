import { createRequire } from 'node:module';

/**
 * libopus 1.4 compiled to WASM, as shipped by the `opusscript` npm package (MIT; libopus BSD-3).
 *
 * Only the package's emscripten module (`build/opusscript_native_wasm.js`) is used, not its JS
 * wrapper (`index.js`): that wrapper is unsafe in a server that holds many codec states at once.
 * (1) It keeps typed-array views of the WASM heap made at construction time; once another instance
 * grows the heap those views are detached and every later encode/decode of the older instance throws.
 * (2) It indexes a Uint16Array view with byte pointers, so its buffers live at twice the address it
 * allocated, i.e. over memory other instances own. Here the heap views are re-read on every call and
 * the scratch buffers are allocated at their real addresses.
 *
 * The native `OpusScriptHandler` holds one libopus encoder and one decoder; its calls exchange
 * 16-bit samples one byte per 16-bit slot (see `encodeFrame` / `decodePacket`). That calling
 * convention belongs to this build, hence the exact pin (`opusscript: 0.1.1`) in package.json; the
 * opus tests re-check it on any upgrade.
 */

/** Sample rate of every opus stream here (opus's native rate). */
export const OPUS_SAMPLE_RATE = 48000;
/** `OPUS_APPLICATION_VOIP`: the realtime API carries conversational speech both ways. */
export const OPUS_APPLICATION_VOIP = 2048;
/** The longest frame the encoder accepts here (60 ms at 48 kHz). */
export const MAX_ENCODE_FRAME_SAMPLES = 2880;
/** The longest duration one opus packet can decode to (120 ms at 48 kHz). */
const MAX_DECODE_SAMPLES = 5760;
/** What the native encoder may write for one packet (its `MAX_PACKET_SIZE`). */
const MAX_ENCODED_PACKET_BYTES = 1276 * 3;
/**
 * Longest packet accepted for decoding: 48 frames of at most 1275 bytes plus framing. Longer ones
 * could only be padding; they are refused rather than copied into the WASM heap.
 */
export const MAX_DECODE_PACKET_BYTES = 65536;

const OPUS_ERRORS: Record<number, string> = {
  [-1]: 'bad argument',
  [-2]: 'buffer too small',
  [-3]: 'internal error',
  [-4]: 'invalid packet',
  [-5]: 'unimplemented',
  [-6]: 'invalid state',
  [-7]: 'memory allocation failed',
};

export function opusErrorText(code: number): string {
  return OPUS_ERRORS[code] ?? `error ${code}`;
}

interface NativeHandler {
  _encode(input: number, bytes: number, output: number, frameSize: number): number;
  _decode(input: number, bytes: number, output: number): number;
}

interface NativeModule {
  HEAPU8: Uint8Array;
  HEAPU16: Uint16Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  OpusScriptHandler: {
    new (sampleRate: number, channels: number, application: number): NativeHandler;
    destroy_handler(handler: NativeHandler): void;
  };
}

interface Native {
  m: NativeModule;
  /** Encoder input: `_encode` reads 4 slots of 16 bits per sample, so 8 bytes per sample. */
  encodeInput: number;
  encodeOutput: number;
  decodeInput: number;
  /** Decoder output: 2 slots of 16 bits per sample. */
  decodeOutput: number;
}

let native: Native | null = null;
let live = 0;

/**
 * The WASM module, instantiated once per process on first use (synchronously: Node compiles the
 * small module quickly). Its scratch buffers are shared by every state: each encode/decode
 * copies in, runs and copies out synchronously, so calls never interleave.
 */
function loadNative(): Native {
  if (native) return native;
  const require = createRequire(import.meta.url);
  const factory = require('opusscript/build/opusscript_native_wasm.js') as () => NativeModule;
  const m = factory();
  if (typeof m.OpusScriptHandler !== 'function') throw new Error('The opusscript WASM module did not initialize synchronously.');
  const encodeInputBytes = MAX_ENCODE_FRAME_SAMPLES * 8;
  const decodeOutputBytes = MAX_DECODE_SAMPLES * 4;
  const base = m._malloc(encodeInputBytes + MAX_ENCODED_PACKET_BYTES + MAX_DECODE_PACKET_BYTES + decodeOutputBytes + 16);
  if (!base) throw new Error('opus: could not allocate WASM scratch memory.');
  const align = (p: number): number => (p + 7) & ~7;
  const encodeInput = align(base);
  const encodeOutput = align(encodeInput + encodeInputBytes);
  const decodeOutput = align(encodeOutput + MAX_ENCODED_PACKET_BYTES);
  const decodeInput = decodeOutput + decodeOutputBytes;
  native = { m, encodeInput, encodeOutput, decodeInput, decodeOutput };
  return native;
}

/** Native codec states currently allocated (for tests and diagnostics). */
export function liveOpusStates(): number {
  return live;
}

/**
 * One libopus encoder + decoder pair in the WASM heap (mono, 48 kHz, VOIP). Must be released:
 * `release()` is idempotent, and later calls throw.
 */
export class OpusNativeState {
  private readonly n: Native;
  private handler: NativeHandler | null;

  constructor() {
    this.n = loadNative();
    this.handler = new this.n.m.OpusScriptHandler(OPUS_SAMPLE_RATE, 1, OPUS_APPLICATION_VOIP);
    live++;
  }

  get released(): boolean {
    return this.handler === null;
  }

  /** Encodes exactly one frame (2.5 to 60 ms of 48 kHz samples) into one packet. */
  encodeFrame(frame: Int16Array): Uint8Array {
    const handler = this.live();
    const n = frame.length;
    if (n === 0 || n > MAX_ENCODE_FRAME_SAMPLES) throw new RangeError(`opus: cannot encode a frame of ${n} samples.`);
    const { m, encodeInput, encodeOutput } = this.n;
    // The native side rebuilds each sample from two 16-bit slots holding its low and high byte.
    const heap = m.HEAPU16;
    const base = encodeInput >> 1;
    for (let i = 0; i < n; i++) {
      const s = frame[i]! & 0xffff;
      heap[base + 2 * i] = s & 0xff;
      heap[base + 2 * i + 1] = s >> 8;
    }
    const length = handler._encode(encodeInput, 2 * n, encodeOutput, n);
    if (length < 0) throw new Error(`opus encoder failed: ${opusErrorText(length)}.`);
    return m.HEAPU8.slice(encodeOutput, encodeOutput + length);
  }

  /** Decodes one packet with this state's decoder; a negative libopus code is returned as is. */
  decodePacket(packet: Uint8Array): Int16Array | number {
    const handler = this.live();
    if (packet.length === 0 || packet.length > MAX_DECODE_PACKET_BYTES) return -4;
    const { m, decodeInput, decodeOutput } = this.n;
    m.HEAPU8.set(packet, decodeInput);
    const samples = handler._decode(decodeInput, packet.length, decodeOutput);
    if (samples < 0) return samples;
    // Output: each sample as two 16-bit slots, low byte then high byte.
    const heap = m.HEAPU16;
    const base = decodeOutput >> 1;
    const out = new Int16Array(samples);
    for (let i = 0; i < samples; i++) out[i] = (((heap[base + 2 * i + 1]! << 8) | heap[base + 2 * i]!) << 16) >> 16;
    return out;
  }

  release(): void {
    if (!this.handler) return;
    this.n.m.OpusScriptHandler.destroy_handler(this.handler);
    this.handler = null;
    live--;
  }

  private live(): NativeHandler {
    if (!this.handler) throw new Error('opus: this codec state was already released.');
    return this.handler;
  }
}
