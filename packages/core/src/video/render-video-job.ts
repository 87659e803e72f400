import { bytesToPcm } from '../shared/audio.js';
import type { BlobStore } from '../shared/blob-store.js';
import type { Clock } from '../shared/clock.js';
import { ServiceError } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import {
  sameEncoderFormat,
  type AvatarRenderer,
  type DrivingSpeech,
  type MediaEncoder,
  type OpenedMediaEncoder,
  type PreparedAvatar,
  type VideoFrame,
  type VideoJobRepository,
} from './ports.js';
import type { StageTimeline } from './stage-timeline.js';
import { videoBlobKeys, type StoredSpeechInfo } from './video-blobs.js';
import { isFinished, reportProgress, transition, videoDimensions, type VideoJob, type VideoSize } from './video-job.js';

/** A live consumer of the fragments (POST /v1/videos/stream) and what it already holds. */
export interface LiveRender {
  prepared?: PreparedAvatar;
  speech?: DrivingSpeech;
  onFragment?: (fragment: Uint8Array) => void;
  /** Where the time goes (render started, first frame, encoder started, first fragment). */
  timeline?: StageTimeline;
  /** An encoder started ahead (openEncoder): used when its format is the video's, closed otherwise. */
  encoder?: OpenedMediaEncoder;
  /**
   * The job's row being written (CreateVideo.store): the render starts at once, and the row is
   * marked in_progress once it exists. A store that fails stops the render as if the job had been
   * deleted (the caller reports the failure). Without it the row must exist already.
   */
  stored?: Promise<void>;
}

/** The service was stopped: the job stays in_progress and is re-run on the next start. */
export class RenderInterruptedError extends Error {}

/**
 * The worker: one job from queued (or in_progress, when an interrupted render is resumed) to
 * completed or failed. Frames are pulled from the renderer by
 * the encoder one at a time (never all held), progress is the share of frames encoded (written as
 * it rises, never backwards), fragments go to the live consumer as they leave the encoder, and the
 * whole MP4 is stored at the end. A render that throws ends `failed` with a message a user can act
 * on; the details go to the log. An aborted signal (shutdown) leaves the job in_progress for the
 * next start to re-run. A job deleted during its render stops at the next progress write.
 */
export class RenderVideoJob {
  /** Jobs this process is rendering now: a second delivery of one of them is not a second render. */
  private readonly rendering = new Set<string>();

  constructor(
    private readonly jobs: VideoJobRepository,
    private readonly blobs: BlobStore,
    private readonly renderer: AvatarRenderer,
    private readonly encoder: MediaEncoder,
    private readonly clock: Clock,
    private readonly logger: Logger = silentLogger,
  ) {}

  /**
   * The queue's handler: runs a waiting job, or resumes one whose render was interrupted (the queue
   * delivers an in_progress job only after a restart or a takeover, within the retry budget that
   * ResumeVideoJobs checks). Deleted and finished jobs, and one this process renders already, are skipped.
   */
  async execute(jobId: string, signal: AbortSignal): Promise<void> {
    const job = await this.jobs.get(jobId);
    if (!job || isFinished(job) || this.rendering.has(job.id)) return;
    await this.run(job, signal);
  }

  /**
   * An encoder for a video of `size`, started now (before the face and the speech are ready) so
   * its start is off the first fragment's path; undefined when the encoder or the renderer cannot
   * tell the format ahead. The caller hands it to run() or closes it.
   */
  openEncoder(size: VideoSize, signal: AbortSignal, timeline?: StageTimeline): OpenedMediaEncoder | undefined {
    const fps = this.renderer.fps;
    if (!this.encoder.open || fps === undefined) return undefined;
    const { width, height } = videoDimensions(size);
    return this.encoder.open({ fps, width, height, onStarted: () => timeline?.mark('encoder started') }, signal);
  }

  /** The speech of a video about to render, handed to the renderer early (it reads it while the face is found). */
  analyseSpeech(speech: DrivingSpeech): void {
    try {
      this.renderer.analyseSpeech?.(speech);
    } catch {
      // a hint: a renderer that fails here renders without it (and fails there visibly if it must)
    }
  }

  async run(start: VideoJob, signal: AbortSignal, live: LiveRender = {}): Promise<VideoJob> {
    try {
      // A resumed job keeps its status and its progress: the new attempt reports nothing lower.
      const job = transition(start, 'in_progress');
      if (this.rendering.has(job.id)) return job;
      // A live job still being stored renders at once (its first frame is made while the row is
      // written: 20-30 ms off the first fragment); its in_progress write waits for the row.
      const { stored } = live;
      const marked = stored
        ? stored.then(
            () => this.jobs.update(job),
            () => false,
          )
        : this.jobs.update(job);
      if (!stored && !(await marked)) return job;
      this.rendering.add(job.id);
      try {
        return await this.render(job, signal, live, marked);
      } finally {
        this.rendering.delete(job.id);
      }
    } finally {
      live.encoder?.close(); // an encoder started ahead and not used (a no-op once it encoded)
    }
  }

  /** `marked`: whether the in_progress row was written (false: the job is gone; the render stops at its first progress write). */
  private async render(started: VideoJob, signal: AbortSignal, live: LiveRender, marked: Promise<boolean>): Promise<VideoJob> {
    let job = started;
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let prepared: PreparedAvatar | undefined = live.prepared;
    const timeline = live.timeline;
    timeline?.mark('render started');
    try {
      const keys = videoBlobKeys(job);
      const speech = live.speech ?? (await this.loadSpeech(job));
      if (!prepared) {
        const image = await this.blobs.get(keys.image);
        if (!image) throw new MissingInputError();
        prepared = await this.renderer.prepare(image, job.size, stop.signal);
      }
      const { width, height } = videoDimensions(job.size);
      const totalFrames = Math.max(1, Math.ceil(job.durationSeconds * prepared.fps));
      const progress = new ProgressWriter(this.jobs, job, marked, () => stop.abort(new VideoDeletedError()));
      const frames = countFrames(firstFrameNow(prepared.render(speech, stop.signal)), (n) => {
        if (n === 1) timeline?.mark('first frame');
        progress.report((n / totalFrames) * 100);
      });
      const parts: Uint8Array[] = [];
      const format = { fps: prepared.fps, width, height };
      const opened = live.encoder && sameEncoderFormat(live.encoder.format, format) ? live.encoder : undefined;
      if (!opened) live.encoder?.close();
      const onStarted = () => timeline?.mark('encoder started');
      const output = opened
        ? opened.encode(frames, speech.audio, stop.signal)
        : this.encoder.encodeFragmentedMp4(frames, speech.audio, { ...format, onStarted }, stop.signal);
      for await (const fragment of output) {
        if (parts.length === 0) timeline?.mark('first bytes out');
        parts.push(fragment);
        live.onFragment?.(fragment);
      }
      stop.signal.throwIfAborted();
      job = await progress.settled();
      await this.blobs.put(keys.video, concat(parts));
      const completed = transition(job, 'completed', { at: this.clock.now() });
      if (!(await this.jobs.update(completed))) await this.blobs.delete(keys.video).catch(() => undefined);
      this.logger.info({ video: job.id, bytes: parts.reduce((n, p) => n + p.length, 0) }, 'video completed');
      return completed;
    } catch (err) {
      if (stop.signal.reason instanceof VideoDeletedError) return job;
      if (signal.aborted) throw new RenderInterruptedError(`render of ${job.id} interrupted`);
      this.logger.error({ video: job.id, err: err instanceof Error ? err.stack : String(err) }, 'video render failed');
      if (!(await marked)) return job; // never stored (or deleted): no row to mark failed
      const latest = (await this.jobs.get(job.id)) ?? job;
      if (latest.status !== 'in_progress') return latest;
      const failed = transition(latest, 'failed', { error: userMessage(err, job.id), at: this.clock.now() });
      await this.jobs.update(failed);
      return failed;
    } finally {
      signal.removeEventListener('abort', onAbort);
      prepared?.release?.();
    }
  }

  private async loadSpeech(job: VideoJob): Promise<DrivingSpeech> {
    const keys = videoBlobKeys(job);
    const [pcm, info] = await Promise.all([this.blobs.get(keys.audio), this.blobs.get(keys.speech)]);
    if (!pcm || !info) throw new MissingInputError();
    const parsed = JSON.parse(new TextDecoder().decode(info)) as StoredSpeechInfo;
    return { audio: { samples: bytesToPcm(pcm), sampleRate: parsed.sampleRate }, ...(parsed.words ? { words: parsed.words } : {}) };
  }
}

/** A failure whose message is meant for the user as it is. */
class MissingInputError extends Error {
  constructor() {
    super('The stored inputs of this video are gone; create the video again.');
  }
}

class VideoDeletedError extends Error {}

/** What the user reads in `error`: our own messages as they are, anything else without internals. */
function userMessage(err: unknown, jobId: string): string {
  if (err instanceof ServiceError || err instanceof MissingInputError) return err.message;
  return `The video could not be rendered because of a server error (${jobId}). Create it again; if it fails again, try another ref_image or a shorter input.`;
}

/**
 * Writes progress as it rises, one write at a time and always the latest value, so the stored
 * progress never goes backwards and a fast encoder is never held up by the database.
 */
class ProgressWriter {
  private writing: Promise<void>;
  private pending = false;

  constructor(
    private readonly jobs: VideoJobRepository,
    private job: VideoJob,
    /** The in_progress write: every progress write follows it; false calls onGone. */
    marked: Promise<boolean>,
    private readonly onGone: () => void,
  ) {
    this.writing = marked.then((ok) => {
      if (!ok) onGone();
    });
  }

  report(percent: number): void {
    const next = reportProgress(this.job, percent);
    if (next === this.job) return;
    this.job = next;
    if (this.pending) return;
    this.pending = true;
    this.writing = this.writing.then(async () => {
      this.pending = false;
      if (!(await this.jobs.update(this.job))) this.onGone();
    });
  }

  async settled(): Promise<VideoJob> {
    await this.writing;
    return this.job;
  }
}

/**
 * Asks for the first frame at once, before anyone reads: the renderer makes it (a new photo's
 * warp tables, the first warp) while the encoder's process starts, instead of after. Leaving
 * early still ends the renderer.
 */
function firstFrameNow<T>(source: AsyncIterable<T>): AsyncIterable<T> {
  const frames = source[Symbol.asyncIterator]();
  const first = frames.next();
  first.catch(() => undefined); // reported to the reader, if one comes
  return {
    async *[Symbol.asyncIterator]() {
      let done = false;
      try {
        for (let next = await first; !next.done; next = await frames.next()) yield next.value;
        done = true;
      } finally {
        if (!done) await frames.return?.();
      }
    },
  };
}

async function* countFrames(frames: AsyncIterable<VideoFrame>, onFrame: (count: number) => void): AsyncGenerator<VideoFrame> {
  let count = 0;
  for await (const frame of frames) {
    yield frame;
    // Counted once the encoder asks for the next one: the frame has been handed to the encoder.
    onFrame(++count);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
