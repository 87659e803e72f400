// Local declarations for the untyped Emscripten build of the Speex resampler (raw C API).
declare module '@echogarden/speex-resampler-wasm' {
  export interface SpeexResamplerModule {
    HEAP32: Int32Array;
    HEAPF32: Float32Array;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    _speex_resampler_init(channels: number, inRate: number, outRate: number, quality: number, errPointer: number): number;
    _speex_resampler_destroy(state: number): void;
    _speex_resampler_get_input_latency(state: number): number;
    _speex_resampler_skip_zeros(state: number): number;
    _speex_resampler_process_float(
      state: number,
      channel: number,
      inPointer: number,
      inLengthPointer: number,
      outPointer: number,
      outLengthPointer: number,
    ): number;
  }

  export default function Init(moduleArg?: object): Promise<SpeexResamplerModule>;
}

// The same build with WASM SIMD (several times faster on x86-64); identical API.
declare module '@echogarden/speex-resampler-wasm/simd' {
  import type { SpeexResamplerModule } from '@echogarden/speex-resampler-wasm';
  export default function Init(moduleArg?: object): Promise<SpeexResamplerModule>;
}
