import type { FaceApiRuntime, FaceBox } from './face-api-runtime.js';
import { sharp } from './decode-image.js';
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
  for (const detection of byAreaDescending(found)) faces.push({ ...detection, landmarks: await faceLandmarks(runtime, image, detection.box) });
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

/**
 * The largest face's box, from one detector pass on `image` (a reduced copy is enough: the
 * detector sees every photo at 512x512), or null.
 */
export async function largestFaceBox(runtime: FaceApiRuntime, image: RgbImage, minScore = MIN_FACE_SCORE): Promise<{ score: number; box: FaceBox } | null> {
  return byAreaDescending(await runtime.ssd.locate(image, minScore, MAX_FACES))[0] ?? null;
}

/** The side of the landmark net's input: face-api pads a face to a square and resizes it to 112x112. */
const LANDMARK_INPUT = 112;

/**
 * The 68 landmarks of the face in `box` (the photo's pixels), cut from the full-resolution photo the
 * way face-api cuts it (the box clipped to the photo and floored) and reduced with a lanczos filter
 * so its longer side is the net's 112 px: the net then sees a properly filtered face whatever the
 * photo's size (its own bilinear resize, without filtering, aliases a large face), and tfjs gets
 * a 112 px crop instead of the whole picture as int32.
 */
export async function landmarksOfBox(runtime: FaceApiRuntime, photo: RgbImage, box: FaceBox): Promise<Point[]> {
  const left = Math.floor(Math.max(0, box.x));
  const top = Math.floor(Math.max(0, box.y));
  const width = Math.floor(Math.min(box.x + box.width, photo.width) - Math.max(0, box.x));
  const height = Math.floor(Math.min(box.y + box.height, photo.height) - Math.max(0, box.y));
  if (width <= 0 || height <= 0) return [];
  const scale = Math.min(1, LANDMARK_INPUT / Math.max(width, height));
  const crop = await sharp()(photo.data, { raw: { width: photo.width, height: photo.height, channels: 3 } })
    .extract({ left, top, width, height })
    .resize(Math.max(1, Math.round(width * scale)), Math.max(1, Math.round(height * scale)), { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const [sx, sy] = [crop.info.width / width, crop.info.height / height];
  const tensor = runtime.tf.tensor3d(new Uint8Array(crop.data.buffer, crop.data.byteOffset, crop.data.byteLength), [crop.info.height, crop.info.width, 3], 'int32');
  try {
    const landmarks = await runtime.faceapi.nets.faceLandmark68Net.detectLandmarks(tensor);
    return landmarks.positions.map((p) => ({ x: p.x / sx + left, y: p.y / sy + top }));
  } finally {
    tensor.dispose();
  }
}

/** At most this many faces per photo (face-api's maxResults as the service always used it). */
const MAX_FACES = 20;

const byAreaDescending = <T extends { box: FaceBox }>(faces: T[]): T[] => [...faces].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);

/**
 * The landmark net on one face, cropped as face-api crops it for withFaceLandmarks() (the box
 * clipped to the image and floored), the positions placed back at the box's corner.
 */
async function faceLandmarks(runtime: FaceApiRuntime, image: RgbImage, box: FaceBox): Promise<Point[]> {
  const { tf, faceapi } = runtime;
  const tensor = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
  try {
    const relative = new faceapi.Rect(box.x / image.width, box.y / image.height, box.width / image.width, box.height / image.height);
    const [face] = await faceapi.extractFaceTensors(tensor, [new faceapi.FaceDetection(1, relative, { width: image.width, height: image.height })]);
    try {
      const landmarks = await faceapi.nets.faceLandmark68Net.detectLandmarks(face!);
      return landmarks.positions.map((p) => ({ x: p.x + box.x, y: p.y + box.y }));
    } finally {
      face!.dispose();
    }
  } finally {
    tensor.dispose();
  }
}

/**
 * The 68 landmarks of a face whose box is known (e.g. tracked from the previous frame): the
 * landmark net alone on a square crop around the box, ~10 ms instead of a detector pass.
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
