import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The parts of @vladmandic/face-api (node-wasm build) and tfjs the avatar uses. */
export interface FaceApiRuntime {
  tf: TfApi;
  faceapi: FaceApiModule;
}

export interface TfTensor3D {
  dispose(): void;
}
export interface TfApi {
  tensor3d(values: Uint8Array | Int32Array, shape: [number, number, number], dtype: 'int32'): TfTensor3D;
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  getBackend(): string;
}
export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface FaceApiResult {
  detection: { score: number; box: FaceBox };
  landmarks: { positions: { x: number; y: number }[] };
}
interface FaceApiModule {
  nets: {
    ssdMobilenetv1: { loadFromDisk(dir: string): Promise<void> };
    faceLandmark68Net: { loadFromDisk(dir: string): Promise<void> };
  };
  SsdMobilenetv1Options: new (options: { minConfidence: number; maxResults?: number }) => unknown;
  detectAllFaces(input: TfTensor3D, options: unknown): { withFaceLandmarks(): Promise<FaceApiResult[]> };
  /** 68 landmarks of an image that is already a face crop (positions in the crop's pixels). */
  detectFaceLandmarks(input: TfTensor3D): Promise<{ positions: { x: number; y: number }[] }>;
}

let loading: Promise<FaceApiRuntime> | null = null;

/**
 * Loads tfjs on its WASM backend and face-api's SSD MobileNet v1 detector and 68-point landmark
 * model, once per process. Everything comes from node_modules: the .wasm binaries from
 * @tensorflow/tfjs-backend-wasm's dist folder (read from disk by emscripten, never fetched), the
 * weights from @vladmandic/face-api's model folder. No network.
 */
export function loadFaceApi(): Promise<FaceApiRuntime> {
  loading ??= load().catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

/**
 * Emscripten's Node glue in @tensorflow/tfjs-backend-wasm adds process listeners that rethrow every
 * uncaught exception and unhandled rejection (`process.on('unhandledRejection', r => { throw r })`),
 * turning any stray rejection anywhere in the process into a crash, and its own `_dispose` fails to
 * remove them. Node's default handling is what the rest of the process expects, so they are removed
 * once the backend has started.
 */
async function withoutEmscriptenProcessHandlers<T>(start: () => Promise<T>): Promise<T> {
  const events = ['uncaughtException', 'unhandledRejection'];
  const listeners = (event: string): Function[] => process.listeners(event as 'uncaughtException');
  const before = new Map(events.map((event) => [event, new Set(listeners(event))]));
  try {
    return await start();
  } finally {
    for (const event of events) {
      for (const listener of listeners(event)) {
        if (!before.get(event)?.has(listener)) process.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  }
}

async function load(): Promise<FaceApiRuntime> {
  return withoutEmscriptenProcessHandlers(loadRuntime);
}

async function loadRuntime(): Promise<FaceApiRuntime> {
  const require = createRequire(import.meta.url);
  const tf = require('@tensorflow/tfjs') as TfApi;
  const wasm = require('@tensorflow/tfjs-backend-wasm') as { setWasmPaths(prefix: string, usePlatformFetch?: boolean): void };
  const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApiModule;
  const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
  const modelDir = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
  // usePlatformFetch=false: emscripten reads the local file itself (Node's fetch refuses plain paths).
  wasm.setWasmPaths(`${wasmDir}/`, false);
  if (tf.getBackend() !== 'wasm') {
    if (!(await tf.setBackend('wasm'))) throw new Error('the tfjs WASM backend did not start');
  }
  await tf.ready();
  await faceapi.nets.ssdMobilenetv1.loadFromDisk(modelDir);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(modelDir);
  return { tf, faceapi };
}
