import type { LiveAvatar, LiveAvatarRenderer, VideoFrame, VideoSize } from '@svc/core';
import { throwIfAborted } from '../../runtime/abort.js';
import { LazyWorkerPool } from '../../runtime/lazy-worker-pool.js';
import type { WorkerPool } from '../../runtime/worker-pool.js';
import { faceGeometry } from '../face-geometry.js';
import { FaceWarper } from '../face-warper.js';
import type { FrameRenderRequest, FrameRenderResult } from '../frame-render-job.js';
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
  private readonly threads: LazyWorkerPool<FrameRenderRequest, FrameRenderResult>;

  constructor(
    private readonly faces: LandmarkAvatarRenderer,
    private readonly options: LandmarkLiveAvatarRendererOptions = {},
  ) {
    this.fps = options.fps ?? 25;
    this.threads = new LazyWorkerPool({ name: 'live avatar renderer', script: new URL('../frame-render-worker.js', import.meta.url), size: options.renderThreads ?? 1 });
  }

  async open(image: Uint8Array, options: { size: VideoSize }, signal?: AbortSignal): Promise<LiveAvatar> {
    const photo = await this.faces.preparePhoto(image, options.size, signal);
    const pool = this.renderPool();
    if (pool) await pool; // threads up before the first frame is due
    throwIfAborted(signal);
    return new LandmarkLiveAvatar(photo, this.fps, pool);
  }

  /** Starts the render thread now instead of with the first call. */
  async warmUp(): Promise<void> {
    await this.renderPool();
  }

  async close(): Promise<void> {
    await this.threads.close();
  }

  private renderPool(): Promise<WorkerPool<FrameRenderRequest, FrameRenderResult>> | null {
    return (this.options.renderThreads ?? 1) <= 0 ? null : this.threads.get();
  }

}

class LandmarkLiveAvatar implements LiveAvatar {
  readonly width: number;
  readonly height: number;
  private readonly poses: LivePoses;
  private warper: FaceWarper | null = null;
  private closed = false;
  /**
   * The framed photo in shared memory: every frame's request names it, and a Uint8Array on a
   * SharedArrayBuffer crosses to the render thread without a copy (a plain one was cloned, ~0.9-1.2 MB
   * on the event loop, 25 times a second, though the thread already had it).
   */
  private readonly reference: Uint8Array;

  constructor(
    private readonly photo: PreparedPhoto,
    readonly fps: number,
    private readonly pool: Promise<WorkerPool<FrameRenderRequest, FrameRenderResult>> | null,
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
