import type { LiveAvatar, LiveAvatarRenderer, VideoFrame, VideoSize } from '@svc/core';
import { throwIfAborted } from '@svc/adapters-runtime';
import { LazyWorkerPool } from '@svc/adapters-runtime';
import type { WorkerPool } from '@svc/adapters-runtime';
import { faceGeometry } from '../face-geometry.js';
import { FaceWarper } from '../face-warper.js';
import type { FrameRenderResult, RenderThreadRequest } from '../frame-render-job.js';
import type { LandmarkAvatarRenderer, PreparedPhoto } from '../landmark-avatar-renderer.js';
import { LivePoses } from './live-poses.js';

export interface LandmarkLiveAvatarRendererOptions {
  /** Frames per second of the live video; default 25. */
  fps?: number;
  /**
   * Worker threads that warp live frames, shared by every live avatar of the process and separate
   * from the video jobs' (a long /v1/videos render must not starve a call's frames); default 1.
   * 0 renders on the calling thread (tests).
   */
  renderThreads?: number;
}

/**
 * Live talking heads for realtime calls: the photo is prepared like a video's (the same detector
 * thread and prepared-face cache of the LandmarkAvatarRenderer), then each frame is posed from the
 * reply audio scheduled so far (LivePoses) and warped in a render thread.
 */
export class LandmarkLiveAvatarRenderer implements LiveAvatarRenderer {
  private readonly fps: number;
  private readonly threads: LazyWorkerPool<RenderThreadRequest, FrameRenderResult>;
  /** Avatars that made a frame lately, and when (performance.now()): what liveLoad counts. */
  private readonly lastFrames = new Map<LandmarkLiveAvatar, number>();

  constructor(
    private readonly faces: LandmarkAvatarRenderer,
    private readonly options: LandmarkLiveAvatarRendererOptions = {},
  ) {
    this.fps = options.fps ?? 25;
    this.threads = new LazyWorkerPool({
      name: 'live avatar renderer',
      script: new URL('../frame-render-worker.js', import.meta.url),
      size: options.renderThreads ?? 1,
    });
  }

  async open(image: Uint8Array, options: { size: VideoSize }, signal?: AbortSignal): Promise<LiveAvatar> {
    const photo = await this.faces.preparePhoto(image, options.size, signal);
    const pool = this.renderPool();
    if (pool) await pool; // threads up before the first frame is due
    throwIfAborted(signal);
    return new LandmarkLiveAvatar(photo, this.fps, pool, (avatar) => this.lastFrames.set(avatar, performance.now()));
  }

  /**
   * The live avatars making frames now (one that made none in the last second is not counted), in
   * 640x640 equivalents: a 640x480 one is 0.75. The capacity admission reserves CPU for them.
   */
  liveLoad(): number {
    const since = performance.now() - LIVE_WITHIN_MS;
    let load = 0;
    for (const [avatar, at] of this.lastFrames) {
      if (at < since) this.lastFrames.delete(avatar);
      else load += (avatar.width * avatar.height) / FULL_SIZE_PIXELS;
    }
    return load;
  }

  /** Starts the render thread now instead of with the first call. */
  async warmUp(): Promise<void> {
    await this.renderPool();
  }

  async close(): Promise<void> {
    await this.threads.close();
  }

  private renderPool(): Promise<WorkerPool<RenderThreadRequest, FrameRenderResult>> | null {
    return (this.options.renderThreads ?? 1) <= 0 ? null : this.threads.get();
  }
}

/** A live avatar that made no frame for this long is idle (its call's video stopped). */
const LIVE_WITHIN_MS = 1000;
/** The largest video size (640x640): the unit of liveLoad. */
const FULL_SIZE_PIXELS = 640 * 640;

class LandmarkLiveAvatar implements LiveAvatar {
  readonly width: number;
  readonly height: number;
  private readonly poses: LivePoses;
  private warper: FaceWarper | null = null;
  private closed = false;
  /**
   * The framed photo in shared memory: every frame's request names it, and a Uint8Array on a
   * SharedArrayBuffer crosses to the render thread without a copy (a plain one was cloned, a whole
   * frame on the event loop for every frame, though the thread already had it).
   */
  private readonly reference: Uint8Array;

  constructor(
    private readonly photo: PreparedPhoto,
    readonly fps: number,
    private readonly pool: Promise<WorkerPool<RenderThreadRequest, FrameRenderResult>> | null,
    private readonly framed: (avatar: LandmarkLiveAvatar) => void,
  ) {
    this.width = photo.framed.width;
    this.height = photo.framed.height;
    this.poses = new LivePoses(fps, faceGeometry(photo.landmarks).eyeDistance, photo.seed);
    this.reference = new Uint8Array(new SharedArrayBuffer(photo.framed.data.length));
    this.reference.set(photo.framed.data);
  }

  speak(samples: Int16Array, sampleRate: number, atMs: number): void {
    if (!this.closed) this.poses.speak(samples, sampleRate, atMs);
  }

  cut(atMs: number): void {
    this.poses.cut(atMs);
  }

  async frame(atMs: number, signal?: AbortSignal): Promise<VideoFrame> {
    if (this.closed) throw new Error('this live avatar was closed');
    this.framed(this);
    const pose = this.poses.at(atMs);
    const { framed, landmarks, key } = this.photo;
    if (!this.pool) {
      this.warper ??= new FaceWarper(framed, faceGeometry(landmarks));
      const rgb = new Uint8Array(this.width * this.height * 3);
      this.warper.render(pose, rgb);
      return { rgb, width: this.width, height: this.height };
    }
    const pool = await this.pool;
    const request = { avatarKey: key, width: this.width, height: this.height, reference: this.reference, landmarks, poses: [pose] };
    const { frames } = await pool.run(request, { signal });
    return { rgb: new Uint8Array(frames[0]!), width: this.width, height: this.height };
  }

  close(): void {
    this.closed = true;
    this.warper = null;
  }
}
