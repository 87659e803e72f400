// Local declaration for the untyped Emscripten build of Rubber Band (the API is typed in
// voice-cloning/rubberband-module.ts).
declare module '@echogarden/rubberband-wasm' {
  export default function Rubberband(moduleArg?: object): Promise<unknown>;
}
