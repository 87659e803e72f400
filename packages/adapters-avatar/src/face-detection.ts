import type { FaceApiRuntime, FaceBox } from './face-api-runtime.js';
import type { Point, RgbImage } from './rgb-image.js';

/** One face: its detector box and the 68 iBUG landmarks (jaw 0-16, brows 17-26, nose 27-35, eyes 36-47, lips 48-67). */
export interface DetectedFace {
  score: number;
  box: FaceBox;
  landmarks: Point[];
}

/** Lowest SSD score taken as a face (the sample photos score 0.6-1.0; hair and hands below 0.3). */
export const MIN_FACE_SCORE = 0.4;

/** All faces the SSD MobileNet detector finds, with landmarks, largest first. */
export async function detectFaces(runtime: FaceApiRuntime, image: RgbImage, minScore = MIN_FACE_SCORE): Promise<DetectedFace[]> {
  const found = await runtime.ssd.locate(image, minScore, MAX_FACES);
  const faces: DetectedFace[] = [];
  for (const detection of byAreaDescending(found))
    faces.push({ ...detection, landmarks: await faceLandmarks(runtime, image, detection.box) });
  return faces;
}

/**
 * The largest face and its 68 landmarks: one detector pass, then the landmark net on that face
 * alone (face-api's withFaceLandmarks() runs it on every face found: 3-5 in a group photo).
 */
export async function detectLargestFace(runtime: FaceApiRuntime, image: RgbImage, minScore = MIN_FACE_SCORE): Promise<DetectedFace | null> {
  const [largest] = byAreaDescending(await runtime.ssd.locate(image, minScore, MAX_FACES));
  return largest ? { ...largest, landmarks: await faceLandmarks(runtime, image, largest.box) } : null;
}

/** At most this many faces per photo (face-api's maxResults as the service always used it). */
const MAX_FACES = 20;

const byAreaDescending = <T extends { box: FaceBox }>(faces: T[]): T[] =>
  [...faces].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);

/**
 * The landmark net on one face, cropped as face-api crops it for withFaceLandmarks() (the box
 * scaled to the image, clipped to it and floored: face-api's own Box methods), the positions placed
 * back at the box's corner. Only the crop becomes a tensor: extractFaceTensors() needs the whole
 * picture as an int32 tensor first (four bytes a channel of the whole copy, allocated and filled per
 * photo), for the same pixels in the same order.
 */
async function faceLandmarks(runtime: FaceApiRuntime, image: RgbImage, box: FaceBox): Promise<Point[]> {
  const { tf, faceapi } = runtime;
  const dims = { width: image.width, height: image.height };
  const relative = new faceapi.Rect(box.x / image.width, box.y / image.height, box.width / image.width, box.height / image.height);
  const crop = new faceapi.FaceDetection(1, relative, dims)
    .forSize(image.width, image.height)
    .box.clipAtImageBorders(image.width, image.height);
  if (!(crop.width > 0 && crop.height > 0)) throw new Error('the face box lies outside the image');
  const pixels = new Int32Array(crop.width * crop.height * 3);
  for (let y = 0; y < crop.height; y++) {
    const row = ((crop.y + y) * image.width + crop.x) * 3;
    pixels.set(image.data.subarray(row, row + crop.width * 3), y * crop.width * 3);
  }
  const face = tf.tensor3d(pixels, [crop.height, crop.width, 3], 'int32');
  try {
    const landmarks = await faceapi.nets.faceLandmark68Net.detectLandmarks(face);
    return landmarks.positions.map((p) => ({ x: p.x + box.x, y: p.y + box.y }));
  } finally {
    face.dispose();
  }
}

/**
 * The 68 landmarks of a face whose box is known (e.g. tracked from the previous frame): the
 * landmark net alone on a square crop around the box, much cheaper than a detector pass.
 */
export async function landmarksInBox(runtime: FaceApiRuntime, image: RgbImage, box: FaceBox, margin = 1.3): Promise<Point[]> {
  const side = Math.round(Math.max(box.width, box.height) * margin);
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const x0 = Math.round(cx - side / 2);
  const y0 = Math.round(cy - side / 2);
  const crop = new Uint8Array(side * side * 3);
  for (let y = 0; y < side; y++) {
    const sy = Math.min(image.height - 1, Math.max(0, y0 + y));
    for (let x = 0; x < side; x++) {
      const sx = Math.min(image.width - 1, Math.max(0, x0 + x));
      const i = (sy * image.width + sx) * 3;
      const o = (y * side + x) * 3;
      crop[o] = image.data[i]!;
      crop[o + 1] = image.data[i + 1]!;
      crop[o + 2] = image.data[i + 2]!;
    }
  }
  const tensor = runtime.tf.tensor3d(crop, [side, side, 3], 'int32');
  try {
    const result = await runtime.faceapi.detectFaceLandmarks(tensor);
    return result.positions.map((p) => ({ x: p.x + x0, y: p.y + y0 }));
  } finally {
    tensor.dispose();
  }
}
