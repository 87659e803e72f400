import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { OnnxSsdDetector } from './ssd-onnx.js';

/** The parts of @vladmandic/face-api (node-wasm build) and tfjs the avatar uses. */
export interface FaceApiRuntime {
  tf: TfApi;
  faceapi: FaceApiModule;
  /** face-api's SSD face detector, run by onnxruntime (ssd-onnx.ts); face-api keeps the landmark net. */
  ssd: OnnxSsdDetector;
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
/** face-api's Box: the crop helpers' geometry (clipped to the image and floored). */
export interface FaceApiBox extends FaceBox {
  clipAtImageBorders(imageWidth: number, imageHeight: number): FaceBox;
}
export interface FaceApiDetection {
  score: number;
  box: FaceBox;
}
interface FaceApiModule {
  nets: {
    ssdMobilenetv1: {
      /** The loaded weights (tfjs tensors), read once to build the ONNX detector. */
      params?: unknown;
      loadFromDisk(dir: string): Promise<void>;
      /** Boxes only (no landmarks), in the input's pixels: face-api's own pass (tests compare with it). */
      locateFaces(input: TfTensor3D, options: unknown): Promise<FaceApiDetection[]>;
    };
    faceLandmark68Net: {
      loadFromDisk(dir: string): Promise<void>;
      /** The 68 landmarks of a face crop, in the crop's pixels. */
      detectLandmarks(face: TfTensor3D): Promise<{ positions: { x: number; y: number }[] }>;
    };
  };
  /** The detections' regions cut out of the image (face-api's crop for its landmark net). */
  extractFaceTensors(image: TfTensor3D, detections: FaceApiDetection[]): Promise<TfTensor3D[]>;
  SsdMobilenetv1Options: new (options: { minConfidence: number; maxResults?: number }) => unknown;
  /** A new, unloaded SSD network (tests load one to compare the ONNX detector with face-api's pass). */
  SsdMobilenetv1: new () => FaceApiModule['nets']['ssdMobilenetv1'];
  /** A detection as face-api's crop helpers take it (relative box scaled to the image). */
  FaceDetection: new (
    score: number,
    relativeBox: FaceBox,
    imageDims: { width: number; height: number },
  ) => FaceApiDetection & { forSize(width: number, height: number): { box: FaceApiBox } };
  Rect: new (x: number, y: number, width: number, height: number) => FaceBox;
  detectAllFaces(input: TfTensor3D, options: unknown): { withFaceLandmarks(): Promise<FaceApiResult[]> };
  /** 68 landmarks of an image that is already a face crop (positions in the crop's pixels). */
  detectFaceLandmarks(input: TfTensor3D): Promise<{ positions: { x: number; y: number }[] }>;
}

let loading: Promise<FaceApiRuntime> | null = null;

/**
 * Loads tfjs on its WASM backend with face-api's 68-point landmark model, and face-api's SSD
 * MobileNet v1 detector moved onto onnxruntime (ssd-onnx.ts), once per process. Everything comes
 * from node_modules: the .wasm binaries from @tensorflow/tfjs-backend-wasm's dist folder (read from
 * disk by emscripten, never fetched), the weights from @vladmandic/face-api's model folder. No network.
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
  // The detector runs on onnxruntime, built from these weights, which are then released: face-api's
  // own pass held every activation of the 512x512 network at once (WebAssembly heap, kept for good)
  // and ran several times slower on the WASM backend (docs/video.md, Speed).
  const ssd = await OnnxSsdDetector.create(faceapi.nets.ssdMobilenetv1.params);
  await faceapi.nets.faceLandmark68Net.loadFromDisk(modelDir);
  return { tf, faceapi, ssd };
}
