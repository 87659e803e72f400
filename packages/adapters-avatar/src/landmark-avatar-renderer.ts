import {
  InvalidParameterError,
  NoFaceDetectedError,
  type AvatarRenderer,
  type DrivingSpeech,
  type PreparedAvatar,
  type VideoFrame,
  type VideoSize,
} from '@svc/core';
import { throwIfAborted } from '@svc/adapters-runtime';
import { blinkClosure, blinkSchedule } from './blinks.js';
import { LazyWorkerPool } from '@svc/adapters-runtime';
import type { WorkerPool } from '@svc/adapters-runtime';
import { loadFaceApi } from './face-api-runtime.js';
import { MIN_FACE_SCORE } from './face-detection.js';
import { faceGeometry, type FaceGeometry } from './face-geometry.js';
import type { FacePose, MouthShape } from './face-pose.js';
import { FaceWarper } from './face-warper.js';
import type { FrameRenderResult, RenderThreadRequest } from './frame-render-job.js';
import { headMotion } from './head-motion.js';
import { prepareFace, type PrepareFaceOptions, type PreparedFace } from './prepare-face.js';
import { PreparedFaceCache } from './prepared-face-cache.js';
import type { Point, RgbImage } from './rgb-image.js';
import { SpeechMotionCache } from './speech-motion.js';

export interface LandmarkAvatarRendererOptions {
  /** Frames per second of the rendered video; default 25. */
  fps?: number;
  /** Seed of blinks and head motion; default: derived from the photo (same photo, same life). */
  seed?: number;
  /** Longest side of the copy the detector and the landmark net see (SSD itself works at 512 px); default 1024 (a JPEG of 3072 px or more decodes it shrunk on load). */
  detectMaxSide?: number;
  /** Lowest detector score taken as a face; default MIN_FACE_SCORE (0.4). */
  minFaceScore?: number;
  /**
   * Worker threads that warp the frames (shared by every avatar of this renderer); default 1, which
   * keeps the event loop free while ffmpeg encodes on the other core. Face detection then also runs
   * in a thread of its own. 0 does both on the calling thread (each frame and, far longer, each new
   * photo then blocks it).
   */
  renderThreads?: number;
  /**
   * Prepared faces kept for photos sent again (by SHA-256 of the bytes and the size); default 16
   * (~1.2 MB each at 640x640), 0 keeps none.
   */
  faceCacheEntries?: number;
}

/** A photo ready to animate: framed, its landmarks, its cache key (digest and size) and its seed. */
export interface PreparedPhoto {
  framed: RgbImage;
  landmarks: Point[];
  key: string;
  seed: number;
  stages: Readonly<Record<string, number>>;
}

/** Frames per job sent to a render thread after the first two (200 ms of video: small enough to stream, big enough to amortize). */
const FRAMES_PER_BATCH = 5;

/**
 * The embedded talking head: one photo, face-api's SSD face detector + 68 landmarks (tfjs WASM,
 * once per photo), then per frame an inverse-mapped warp of that photo (FaceWarper): mouth from the
 * speech (visemes from word timings when given, else the audio's energy and spectrum), blinks,
 * small head motion. CPU only, a few ms a frame. A neural lip-sync model can replace it behind the
 * AvatarRenderer port.
 */
export class LandmarkAvatarRenderer implements AvatarRenderer {
  /** Frames per second of every avatar it prepares (a stream starts its encoder with it before the face is ready). */
  readonly fps: number;
  private readonly renderThreads: LazyWorkerPool<RenderThreadRequest, FrameRenderResult>;
  private readonly faceThread: LazyWorkerPool<{ image: Uint8Array; options: PrepareFaceOptions }, PreparedFace>;

  private readonly faces: PreparedFaceCache;
  private readonly motions: SpeechMotionCache;

  constructor(private readonly options: LandmarkAvatarRendererOptions = {}) {
    this.fps = options.fps ?? 25;
    this.motions = new SpeechMotionCache(this.fps);
    this.faces = new PreparedFaceCache(options.faceCacheEntries ?? 16);
    this.renderThreads = new LazyWorkerPool({
      name: 'avatar renderer',
      script: new URL('./frame-render-worker.js', import.meta.url),
      size: options.renderThreads ?? 1,
    });
    this.faceThread = new LazyWorkerPool({
      name: 'avatar face detector',
      script: new URL('./face-prepare-worker.js', import.meta.url),
      size: 1,
    });
  }

  /** Stops the render threads (they are unref'd when idle, so a host that never calls this still exits). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.warmUpTimer) clearTimeout(this.warmUpTimer);
    await Promise.all([this.renderThreads.close(), this.faceThread.close()]);
  }

  private renderPool(): Promise<WorkerPool<RenderThreadRequest, FrameRenderResult>> | null {
    return (this.options.renderThreads ?? 1) <= 0 ? null : this.renderThreads.get();
  }

  /**
   * Once the render thread has made its first whole video and the renderer has then been idle for
   * WARM_UP_AFTER_IDLE_MS, the thread compiles the warper's code on a made-up face (a fraction of a
   * second of its CPU, once): the next new photos' warpers are then built by compiled code on their
   * way to the first frame (docs/video.md, Speed). Not at the thread's start (that was the first
   * video's own path: it delayed a cold first fragment), nor right after a video (a request that
   * follows at once would share the CPU).
   */
  private readonly usage = {
    begin: (): void => {
      this.busy++;
    },
    end: (wholeVideo: boolean): void => {
      this.busy--;
      this.lastUse = performance.now();
      if (wholeVideo && !this.warmUpTimer && !this.warmedUp) this.warmUpWhenIdle();
    },
  };
  private busy = 0;
  private lastUse = 0;
  private warmedUp = false;
  private warmUpTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private warmUpWhenIdle(): void {
    this.warmUpTimer = setTimeout(() => {
      if (this.closed) return;
      if (this.busy > 0 || performance.now() - this.lastUse < WARM_UP_AFTER_IDLE_MS) return this.warmUpWhenIdle();
      this.warmUpTimer = null;
      this.warmedUp = true;
      void this.renderPool()
        ?.then((pool) => pool.run({ warmUp: true }))
        .catch(() => undefined); // only speed is at stake
    }, WARM_UP_AFTER_IDLE_MS);
    this.warmUpTimer.unref();
  }

  /** Starts the threads and loads the WASM backend and the weights now instead of on the first prepare(). */
  async warmUp(): Promise<void> {
    const detect = this.detectPool();
    if (detect) await Promise.all([detect, this.renderPool()]);
    else await loadFaceApi();
  }

  /**
   * The clip's loudness and mouth shapes (the spectrum of every frame: 10-30 ms of this thread for
   * 10 s of speech), computed now, while the face is still being found, instead of between the
   * face and the first frame.
   */
  analyseSpeech(drive: DrivingSpeech): void {
    this.motions.of(drive);
  }

  async prepare(image: Uint8Array, size: VideoSize, signal?: AbortSignal): Promise<PreparedAvatar> {
    // the render thread starts while the face is found, not after
    const pool = this.renderPool();
    this.usage.begin();
    try {
      const photo = await this.preparePhoto(image, size, signal);
      const avatar = new LandmarkAvatar(
        photo.framed,
        photo.landmarks,
        this.fps,
        photo.seed,
        pool,
        photo.key,
        photo.stages,
        this.motions,
        this.usage,
      );
      avatar.warm();
      return avatar;
    } finally {
      this.usage.end(false);
    }
  }

  /**
   * The photo framed into `size` with its landmarks (from the cache when the same photo came
   * before), what prepare() and the live avatar both start from.
   */
  async preparePhoto(image: Uint8Array, size: VideoSize | string, signal?: AbortSignal): Promise<PreparedPhoto> {
    const [width, height] = parseSize(size);
    throwIfAborted(signal);
    const started = performance.now();
    const key = PreparedFaceCache.key(image, width, height);
    const seed = this.options.seed ?? hashBytes(image);
    const cached = this.faces.get(key);
    if (cached) return { ...cached, key, seed, stages: { cached: performance.now() - started } };
    const options = {
      width,
      height,
      detectMaxSide: this.options.detectMaxSide ?? 1024,
      minFaceScore: this.options.minFaceScore ?? MIN_FACE_SCORE,
    };
    const pool = this.detectPool();
    const queued = performance.now();
    const face = pool ? await (await pool).run({ image, options }, { signal }) : await prepareFace(await loadFaceApi(), image, options);
    throwIfAborted(signal);
    if (!face.ok && face.reason === 'no_face') throw new NoFaceDetectedError();
    if (!face.ok) throw new InvalidParameterError(`'ref_image' could not be decoded as an image: ${face.message}`, 'ref_image');
    const framed = { data: new Uint8Array(face.framed.data), width: face.framed.width, height: face.framed.height };
    this.faces.set(key, { framed, landmarks: face.landmarks });
    // The detector thread's own steps, and what it waited before them (thread start, a photo ahead in line).
    const inThread = face.stages.decode + face.stages.detect + face.stages.frame;
    const stages = { digest: queued - started, wait: Math.max(0, performance.now() - queued - inThread), ...face.stages };
    return { framed, landmarks: face.landmarks, key, seed, stages };
  }

  private detectPool(): Promise<WorkerPool<{ image: Uint8Array; options: PrepareFaceOptions }, PreparedFace>> | null {
    return (this.options.renderThreads ?? 1) <= 0 ? null : this.faceThread.get();
  }
}

/** How long the renderer must have been idle, after its first video, before the render thread's warm-up. */
const WARM_UP_AFTER_IDLE_MS = 1000;

/** One prepared photo: renders any number of clips. */
class LandmarkAvatar implements PreparedAvatar {
  readonly width: number;
  readonly height: number;
  private readonly geometry: FaceGeometry;
  private framed: RgbImage | null;
  private warper: FaceWarper | null = null;

  constructor(
    framed: RgbImage,
    private readonly landmarks: Point[],
    readonly fps: number,
    private readonly seed: number,
    private readonly pool: Promise<WorkerPool<RenderThreadRequest, FrameRenderResult>> | null,
    /** The photo's digest and size: the render thread keeps one warper per key (same photo, same warper). */
    private readonly key: string,
    readonly stages: Readonly<Record<string, number>>,
    /** The speech motions the renderer computed ahead (analyseSpeech). */
    private readonly motions: SpeechMotionCache,
    /** Told when a render in the render thread begins and ends (whole or not). */
    private readonly usage?: { begin(): void; end(wholeVideo: boolean): void },
  ) {
    this.width = framed.width;
    this.height = framed.height;
    this.framed = framed;
    this.geometry = faceGeometry(landmarks);
  }

  /**
   * Has the render thread build this photo's warper now (a new photo's costs a frame or more), while
   * the request is still being checked and stored: the first frame then only warps. The thread keeps
   * the warper by the photo's key; a warper nobody uses (a refused request) is dropped with the
   * thread's oldest. Without a render thread, nothing (the warper is built on the first frame).
   */
  warm(): void {
    const framed = this.framed;
    if (!this.pool || !framed) return;
    const request = {
      avatarKey: this.key,
      width: this.width,
      height: this.height,
      reference: framed.data,
      landmarks: this.landmarks,
      poses: [],
    };
    void this.pool.then((pool) => pool.run(request)).catch(() => undefined); // a failing thread fails the render itself, visibly
  }

  async *render(drive: DrivingSpeech, signal?: AbortSignal): AsyncGenerator<VideoFrame, void, undefined> {
    const framed = this.framed;
    if (!framed) throw new Error('this avatar was released');
    throwIfAborted(signal);
    const { frameCount, loud, mouth } = this.motions.of(drive);
    const poses = this.poses(loud, mouth, frameCount);
    if (this.pool) {
      yield* this.renderInWorker(framed, poses, frameCount, await this.pool, signal);
      return;
    }
    this.warper ??= new FaceWarper(framed, this.geometry);
    for (let k = 0; k < frameCount; k++) {
      throwIfAborted(signal);
      const rgb = new Uint8Array(this.width * this.height * 3);
      this.warper.render(poses(k), rgb);
      yield { rgb, width: this.width, height: this.height };
    }
  }

  /**
   * Frames from the render thread, FRAMES_PER_BATCH at a time with the next batch already in the
   * works while this one is consumed (so the thread renders while ffmpeg encodes). Leaving early
   * or aborting cancels what is in flight.
   */
  private async *renderInWorker(
    framed: RgbImage,
    poses: (k: number) => FacePose,
    frameCount: number,
    pool: WorkerPool<RenderThreadRequest, FrameRenderResult>,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<VideoFrame, void, undefined> {
    const local = new AbortController();
    const onAbort = (): void => local.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const inFlight: Promise<FrameRenderResult>[] = [];
    let next = 0;
    let whole = false;
    this.usage?.begin();
    const request = (): void => {
      const from = next;
      // The first batches are small (1, then 2 frames) so ffmpeg gets a frame to encode at once and
      // the first fragment leaves sooner; then FRAMES_PER_BATCH.
      next = Math.min(frameCount, from + (from === 0 ? 1 : from === 1 ? 2 : FRAMES_PER_BATCH));
      const job = pool.run(
        {
          avatarKey: this.key,
          width: this.width,
          height: this.height,
          reference: framed.data,
          landmarks: this.landmarks,
          poses: Array.from({ length: next - from }, (_, i) => poses(from + i)),
        },
        { signal: local.signal },
      );
      job.catch(() => undefined); // awaited below; a batch abandoned by an early exit must not be an unhandled rejection
      inFlight.push(job);
    };
    try {
      let emitted = 0;
      while (emitted < frameCount) {
        while (inFlight.length < 2 && next < frameCount) request();
        const { frames } = await inFlight.shift()!;
        for (const buffer of frames) {
          throwIfAborted(signal);
          yield { rgb: new Uint8Array(buffer), width: this.width, height: this.height };
          emitted++;
        }
      }
      whole = true;
    } finally {
      this.usage?.end(whole);
      signal?.removeEventListener('abort', onAbort);
      local.abort();
    }
  }

  /** The pose of every frame: the speech's motion, this face's blinks and head motion (a few numbers per frame). */
  private poses(loud: readonly number[], mouth: readonly MouthShape[], frameCount: number): (k: number) => FacePose {
    const fps = this.fps;
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
    this.framed = null;
    this.warper = null;
  }
}

export function parseSize(size: VideoSize | string): [number, number] {
  const m = /^(\d+)x(\d+)$/.exec(size);
  if (!m) throw new InvalidParameterError(`'size' must look like 640x640, got '${size}'.`, 'size');
  return [Number(m[1]), Number(m[2])];
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
