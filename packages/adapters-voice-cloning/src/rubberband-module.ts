import Rubberband from '@echogarden/rubberband-wasm';

/** The part of Rubber Band's C API (rubberband-c.h) the converter uses, as exported by the WASM build. */
export interface RubberbandApi {
  HEAPF32: Float32Array;
  HEAPU32: Uint32Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  _rubberband_new(sampleRate: number, channels: number, options: number, timeRatio: number, pitchScale: number): number;
  _rubberband_delete(state: number): void;
  _rubberband_set_pitch_scale(state: number, scale: number): void;
  _rubberband_set_formant_scale(state: number, scale: number): void;
  _rubberband_get_preferred_start_pad(state: number): number;
  _rubberband_get_start_delay(state: number): number;
  _rubberband_get_samples_required(state: number): number;
  _rubberband_set_max_process_size(state: number, samples: number): void;
  _rubberband_process(state: number, input: number, samples: number, final: number): void;
  _rubberband_available(state: number): number;
  _rubberband_retrieve(state: number, output: number, samples: number): number;
}

/** Option bits of rubberband-c.h (v3). */
export const RB_OPTIONS = {
  processRealTime: 0x00000001,
  threadingNever: 0x00010000,
  formantPreserved: 0x01000000,
  pitchHighConsistency: 0x04000000,
  windowShort: 0x00100000,
  engineFiner: 0x20000000,
} as const;

let loading: Promise<RubberbandApi> | null = null;

/** Loads the WASM module once per process; every conversion shares it (it is single-threaded JS). */
export function loadRubberband(): Promise<RubberbandApi> {
  loading ??= (Rubberband as unknown as () => Promise<RubberbandApi>)();
  return loading;
}
