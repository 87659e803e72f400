import {
  InvalidParameterError,
  NoFaceDetectedError,
  durationSeconds,
  type AvatarRenderer,
  type DrivingSpeech,
  type PreparedAvatar,
  type VideoFrame,
  type VideoSize,
} from '@svc/core';
import { throwIfAborted } from '../speech/abort.js';
import { audioMouthTrack, loudness } from './audio-mouth-track.js';
import { blinkClosure, blinkSchedule } from './blinks.js';
import { decodeImage, downscale } from './decode-image.js';
import { loadFaceApi, type FaceApiRuntime } from './face-api-runtime.js';
import { detectFaces, detectLargestFace, MIN_FACE_SCORE, type DetectedFace } from './face-detection.js';
import { faceGeometry, type FaceGeometry } from './face-geometry.js';
import type { FacePose, MouthShape } from './face-pose.js';
import { FaceWarper } from './face-warper.js';
import { cropToFrame, frameRect, mean, toFrame } from './framing.js';
import { headMotion } from './head-motion.js';
import type { Point, RgbImage } from './rgb-image.js';
import { speechFeatures } from './speech-features.js';
import { visemeMouthTrack } from './viseme-track.js';

export interface LandmarkAvatarRendererOptions {
  /** Frames per second of the rendered video; default 25. */
  fps?: number;
  /** Seed of blinks and head motion; default: derived from the photo (same photo, same life). */
  seed?: number;
  /** Longest side the detector sees (SSD works at 512 px anyway; big photos detect faster); default 1024. */
  detectMaxSide?: number;
  /** Lowest detector score taken as a face; default MIN_FACE_SCORE (0.4). */
  minFaceScore?: number;
}

/**
 * The embedded talking head: one photo, face-api's SSD face detector + 68 landmarks (tfjs WASM,
 * once per photo), then per frame an inverse-mapped warp of that photo (FaceWarper): mouth from the
 * speech (visemes from word timings when given, else the audio's energy and spectrum), blinks,
 * small head motion. CPU only, a few ms a frame. A neural lip-sync model can replace it behind the
 * AvatarRenderer port.
 */
export class LandmarkAvatarRenderer implements AvatarRenderer {
  private readonly fps: number;

  constructor(private readonly options: LandmarkAvatarRendererOptions = {}) {
    this.fps = options.fps ?? 25;
  }

  /** Loads the WASM backend and the weights now instead of on the first prepare(). */
  async warmUp(): Promise<void> {
    await loadFaceApi();
  }

  async prepare(image: Uint8Array, size: VideoSize, signal?: AbortSignal): Promise<PreparedAvatar> {
    const [width, height] = parseSize(size);
    throwIfAborted(signal);
    const runtime = await loadFaceApi();
    let photo: RgbImage;
    try {
      photo = await decodeImage(image);
    } catch (err) {
      throw new InvalidParameterError(`'ref_image' could not be decoded as an image: ${(err as Error).message}`, 'ref_image');
    }
    throwIfAborted(signal);
    const small = await downscale(photo, this.options.detectMaxSide ?? 1024);
    const face = await detectLargestFace(runtime, small.image, this.options.minFaceScore ?? MIN_FACE_SCORE);
    if (!face) throw new NoFaceDetectedError();
    throwIfAborted(signal);
    const landmarks = face.landmarks.map((p) => ({ x: p.x / small.scale, y: p.y / small.scale }));
    const rect = frameRect(landmarks, photo.width, photo.height, width, height);
    const framed = await cropToFrame(photo, rect, width, height);
    throwIfAborted(signal);
    const refined = await this.refine(runtime, framed, toFrame(landmarks, rect));
    const geometry = faceGeometry(refined);
    const seed = this.options.seed ?? hashBytes(image);
    return new LandmarkAvatar(framed, geometry, this.fps, seed);
  }

  /** Landmarks again on the framed picture (sharper at the new scale): the face nearest where it was put. */
  private async refine(runtime: FaceApiRuntime, framed: RgbImage, expected: Point[]): Promise<Point[]> {
    const faces = await detectFaces(runtime, framed, 0.3);
    const target = mean(expected, 27, 36);
    const nearest = faces
      .map((f: DetectedFace) => ({ f, d: distance(mean(f.landmarks, 27, 36), target) }))
      .sort((a, b) => a.d - b.d)[0];
    const eyeDistance = distance(mean(expected, 36, 42), mean(expected, 42, 48));
    return nearest && nearest.d < eyeDistance * 0.5 ? nearest.f.landmarks : expected;
  }
}

/** One prepared photo: renders any number of clips. */
class LandmarkAvatar implements PreparedAvatar {
  readonly width: number;
  readonly height: number;
  private warper: FaceWarper | null;

  constructor(
    framed: RgbImage,
    private readonly geometry: FaceGeometry,
    readonly fps: number,
    private readonly seed: number,
  ) {
    this.width = framed.width;
    this.height = framed.height;
    this.warper = new FaceWarper(framed, geometry);
  }

  /** The reference frame as prepared (framed photo), for previews and tests. */
  async *render(drive: DrivingSpeech, signal?: AbortSignal): AsyncGenerator<VideoFrame, void, undefined> {
    const warper = this.warper;
    if (!warper) throw new Error('this avatar was released');
    const frameCount = Math.ceil(durationSeconds(drive.audio) * this.fps - 1e-9);
    const poses = this.poses(drive, frameCount);
    for (let k = 0; k < frameCount; k++) {
      throwIfAborted(signal);
      const rgb = new Uint8Array(this.width * this.height * 3);
      warper.render(poses(k), rgb);
      yield { rgb, width: this.width, height: this.height };
    }
  }

  /** The pose of every frame (cheap: a few numbers per frame, computed up front from the audio). */
  private poses(drive: DrivingSpeech, frameCount: number): (k: number) => FacePose {
    const fps = this.fps;
    const features = speechFeatures(drive.audio, fps, frameCount);
    const loud = loudness(features);
    const fromAudio = audioMouthTrack(features);
    const mouth: MouthShape[] = drive.words && drive.words.length > 0 ? visemeMouthTrack(drive.words, fromAudio, fps) : fromAudio;
    const blinks = blinkSchedule(frameCount / fps, this.seed);
    const head = headMotion(loud, fps, this.geometry.eyeDistance, this.seed);
    return (k) => ({
      ...mouth[k]!,
      blink: blinkClosure(blinks, (k + 0.5) / fps),
      headX: head[k]!.x,
      headY: head[k]!.y,
      headRoll: head[k]!.roll,
    });
  }

  release(): void {
    this.warper = null;
  }
}

export function parseSize(size: VideoSize | string): [number, number] {
  const m = /^(\d+)x(\d+)$/.exec(size);
  if (!m) throw new InvalidParameterError(`'size' must look like 640x640, got '${size}'.`, 'size');
  return [Number(m[1]), Number(m[2])];
}

function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** FNV-1a over (a sample of) the photo's bytes: a stable per-photo seed. */
function hashBytes(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  const step = Math.max(1, Math.floor(bytes.length / 65536));
  for (let i = 0; i < bytes.length; i += step) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
