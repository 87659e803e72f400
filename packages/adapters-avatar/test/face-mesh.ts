// A second, independent face model for measuring rendered frames (not a test file itself): the
// MediaPipe face mesh (468 points) + iris of @vladmandic/human, on the same tfjs WASM backend. Its
// eye contours follow the lids to a pixel where face-api's 68-point net (what the renderer uses)
// is off by a third of an eye's height, and they answer to closed eyes, so a blink is judged by
// something other than the geometry that drew it.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadFaceApi } from '../src/face-api-runtime.js';
import type { RgbImage } from '../src/rgb-image.js';

/** The mesh indices of each eye's contour (16 points round the lid edges), image-left eye first. */
export const EYE_CONTOURS = [
  [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246],
  [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466],
] as const;

type Mesh = [number, number, number][];
interface HumanApi {
  load(): Promise<void>;
  detect(input: unknown): Promise<{ face: { box: [number, number, number, number]; mesh: Mesh }[] }>;
  tf: { tensor3d(values: Uint8Array, shape: [number, number, number], dtype: 'int32'): { dispose(): void } };
}

let loading: Promise<HumanApi> | null = null;

function loadHuman(): Promise<HumanApi> {
  loading ??= (async () => {
    // face-api's loader starts the shared tfjs WASM backend (and removes Emscripten's process handlers)
    await loadFaceApi();
    const require = createRequire(import.meta.url);
    // the package's exports map lacks './' on its subpaths, so its WASM build is loaded by path
    const dist = dirname(require.resolve('@vladmandic/human'));
    const { Human } = require(join(dist, 'human.node-wasm.js')) as { Human: new (config: object) => HumanApi };
    const modelDir = join(dist, '..', 'models');
    const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    // Human loads its models with fetch(); Node's fetch has no file: scheme, so the model folder is
    // served from disk here (nothing leaves the machine).
    const fetch = globalThis.fetch;
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url.startsWith('file:')) return new Response(await readFile(new URL(url)));
      return fetch(input, init);
    };
    const human = new Human({
      backend: 'wasm',
      wasmPath: `${wasmDir}/`,
      modelBasePath: `${pathToFileURL(modelDir).href}/`,
      debug: false,
      face: {
        enabled: true,
        detector: { rotation: true, maxDetected: 5 },
        mesh: { enabled: true },
        iris: { enabled: true },
        attention: { enabled: false },
        description: { enabled: false },
        emotion: { enabled: false },
        antispoof: { enabled: false },
        liveness: { enabled: false },
      },
      body: { enabled: false },
      hand: { enabled: false },
      object: { enabled: false },
      gesture: { enabled: false },
      segmentation: { enabled: false },
    });
    await human.load();
    return human;
  })();
  return loading;
}

/** The mesh of the face nearest the frame's centre (the animated one; group photos have others). */
export async function faceMesh(frame: RgbImage): Promise<Mesh> {
  const human = await loadHuman();
  const tensor = human.tf.tensor3d(frame.data, [frame.height, frame.width, 3], 'int32');
  try {
    const { face } = await human.detect(tensor);
    const off = (b: [number, number, number, number]) => Math.hypot(b[0] + b[2] / 2 - frame.width / 2, b[1] + b[3] / 2 - frame.height / 2);
    const nearest = face.sort((a, b) => off(a.box) - off(b.box))[0];
    if (!nearest) throw new Error('the face mesh found no face');
    return nearest.mesh;
  } finally {
    tensor.dispose();
  }
}

/** The pixels (offsets of RGB triples) inside a polygon. */
export function pixelsInside(frame: RgbImage, polygon: readonly (readonly [number, number, ...number[]])[]): number[] {
  const xs = polygon.map((p) => p[0]);
  const ys = polygon.map((p) => p[1]);
  const out: number[] = [];
  for (let y = Math.max(0, Math.floor(Math.min(...ys))); y <= Math.min(frame.height - 1, Math.ceil(Math.max(...ys))); y++) {
    for (let x = Math.max(0, Math.floor(Math.min(...xs))); x <= Math.min(frame.width - 1, Math.ceil(Math.max(...xs))); x++) {
      let inside = false;
      for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
        const [xi, yi] = polygon[i]!;
        const [xj, yj] = polygon[j]!;
        if (yi > y + 0.5 !== yj > y + 0.5 && x + 0.5 < ((xj - xi) * (y + 0.5 - yi)) / (yj - yi) + xi) inside = !inside;
      }
      if (inside) out.push((y * frame.width + x) * 3);
    }
  }
  return out;
}

/**
 * How much of an eye region is NOT one even surface: the share of its pixels further than 40 (RGB
 * distance) from the region's median colour. An open eye (sclera, iris, pupil, lash line) scores
 * 0.25-0.55 on face-api's sample photos; a shut lid is skin with a thin lash line, near 0.
 */
export function unevenShare(frame: RgbImage, pixels: readonly number[]): number {
  const median = [0, 1, 2].map((c) => {
    const values = pixels.map((o) => frame.data[o + c]!).sort((a, b) => a - b);
    return values[values.length >> 1]!;
  });
  const far = pixels.filter(
    (o) => Math.hypot(frame.data[o]! - median[0]!, frame.data[o + 1]! - median[1]!, frame.data[o + 2]! - median[2]!) > 40,
  );
  return far.length / Math.max(1, pixels.length);
}
