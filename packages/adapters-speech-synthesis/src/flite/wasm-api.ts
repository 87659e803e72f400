/**
 * The few WebAssembly JS API members flite needs, typed locally: this repository compiles against
 * ES2023 + @types/node 20, which declare no `WebAssembly` global, and declaring one globally would
 * clash with the DOM lib if a package ever adds it.
 */
export type WasmModule = object & { readonly __wasmModule?: never };
export type WasmInstance = object & { readonly __wasmInstance?: never; readonly exports: { memory: { readonly buffer: ArrayBuffer } } };

interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Instance: new (module: WasmModule, imports: object) => WasmInstance;
  Module: { imports(module: WasmModule): { module: string; name: string; kind: string }[] };
}

export const wasmApi: WebAssemblyApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
