import type { FacePose } from './face-pose.js';
import type { Point } from './rgb-image.js';

/** One batch of frames for the render worker: the framed photo, its landmarks, the poses. */
export interface FrameRenderRequest {
  /** Identifies the prepared photo so a worker builds its warper once and reuses it. */
  avatarKey: string;
  width: number;
  height: number;
  /** The framed reference, RGB24 (a copy: the main thread keeps its own). */
  reference: Uint8Array;
  landmarks: Point[];
  poses: FacePose[];
}

/**
 * Asks the thread to compile the warper's code on a made-up face (warmUpWarper), sent once after the
 * thread's first video: new photos' warpers are then built with compiled code (docs/video.md, Speed).
 */
export interface WarmUpRequest {
  warmUp: true;
}

/** What the render thread is sent. */
export type RenderThreadRequest = FrameRenderRequest | WarmUpRequest;

export interface FrameRenderResult {
  /** One RGB24 frame per pose, moved (not copied) back to the main thread. */
  frames: ArrayBuffer[];
}
