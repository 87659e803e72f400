// Local declarations for the untyped Emscripten build of RNNoise (raw C API).
declare module '@echogarden/rnnoise-wasm' {
  export interface RnnoiseModule {
    HEAPF32: Float32Array;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    _rnnoise_create(model: number): number;
    _rnnoise_destroy(state: number): void;
    _rnnoise_get_frame_size(): number;
    /** Denoises one frame in place (input/output in int16 scale); returns the voice probability. */
    _rnnoise_process_frame(state: number, out: number, input: number): number;
  }
  export default function Init(moduleArg?: object): Promise<RnnoiseModule>;
}
