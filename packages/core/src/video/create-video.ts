import type { Principal } from '../auth/api-key.js';
import { pcmToBytes } from '../shared/audio.js';
import type { BlobStore } from '../shared/blob-store.js';
import type { Clock } from '../shared/clock.js';
import { CountsByKey } from '../shared/counts-by-key.js';
import { ServiceError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { DrivingSpeechLoader } from './driving-speech-loader.js';
import { InvalidImageError, NoFaceDetectedError, VideoBacklogLimitError } from './errors.js';
import type { AvatarRenderer, DrivingSpeech, JobQueue, PreparedAvatar, VideoJobRepository } from './ports.js';
import type { ReferenceImageLoader } from './reference-image-loader.js';
import { videoBlobKeys, type StoredSpeechInfo } from './video-blobs.js';
import type { StageTimeline } from './stage-timeline.js';
import type { VideoJob } from './video-job.js';
import { validateVideoRequest, type VideoRequest, type VideoRequestInput } from './video-request.js';

/** The queue the render jobs go through. */
export const VIDEO_QUEUE = 'video.render';

export interface CreateVideoOptions {
  /** How long a video is kept after its creation; null keeps it until deleted. */
  retentionMs: number | null;
  /** Videos a key may have queued or rendering at once (SVC_VIDEO_MAX_PENDING_PER_KEY); unset or 0: no limit. */
  maxPendingPerKey?: number;
}

/** A request that passed every check, its job (stored by store()) and what it took to check it. */
export interface AcceptedVideo {
  job: VideoJob;
  /** The prepared face (the face check prepared it): a live stream renders from it at once. */
  prepared: PreparedAvatar;
  speech: DrivingSpeech;
  /** The photo's bytes, stored with the job. */
  image: Uint8Array;
}

/**
 * POST /v1/videos. Everything a caller can get wrong is decided here, before a job exists: the
 * cheap rules first (model, size, one driving input, the nested speech request), then the photo's
 * header (format and dimensions, before any decoding), then the face (the renderer's prepare finds
 * it in tens of ms: no face is a 400, not a failed job), then the driving speech (decoded or
 * synthesized, bounded at 60 s). Inputs are stored before the row, so a row never exists without
 * them; a crash in between leaves only unreferenced blobs.
 */
export class CreateVideo {
  constructor(
    private readonly images: ReferenceImageLoader,
    private readonly speech: DrivingSpeechLoader,
    private readonly renderer: AvatarRenderer,
    private readonly jobs: VideoJobRepository,
    private readonly blobs: BlobStore,
    private readonly queue: JobQueue,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly options: CreateVideoOptions,
    private readonly logger: Logger = silentLogger,
  ) {}

  /** Requests of each key being checked now (not yet rows): a burst sent at once counts before its rows exist. */
  private readonly checking = new CountsByKey();

  /**
   * `raw` may be a function that reads the request body: it is called only once the key is under its
   * limit of pending videos, so a refused request (429) costs no body read, no decoding, no detection.
   */
  async execute(
    principal: Principal,
    raw: VideoRequestInput | (() => Promise<VideoRequestInput>),
    signal?: AbortSignal,
  ): Promise<VideoJob> {
    const key = principal.apiKeyId;
    await this.admit(key);
    try {
      const accepted = await this.accept(principal, typeof raw === 'function' ? await raw() : raw, signal);
      accepted.prepared.release?.();
      await this.enqueue(accepted.job.id);
      return accepted.job;
    } finally {
      this.checking.remove(key);
    }
  }

  /**
   * Refuses a key that already has its maximum of videos queued, rendering or being checked; else
   * counts this request among those being checked (execute's `finally` ends that).
   */
  private async admit(apiKeyId: string): Promise<void> {
    const max = this.options.maxPendingPerKey ?? 0;
    const stored = max > 0 ? await this.jobs.countUnfinished(apiKeyId) : 0;
    // Read after the query, with no await before the count goes up: requests sent together are
    // admitted one by one, so a burst stops at the limit (a request whose row was stored meanwhile
    // is counted twice for a moment: that errs on the side of the limit).
    if (max > 0 && stored + this.checking.of(apiKeyId) >= max) throw new VideoBacklogLimitError(max);
    this.checking.add(apiKeyId);
  }

  /**
   * The job is stored, queued. A durable queue's repair scan enqueues a queued row the queue does
   * not hold once the queue answers again, so the video will be made: the caller gets its job to
   * poll, not an error that a retry would turn into a second video.
   */
  private async enqueue(videoId: string): Promise<void> {
    try {
      await this.queue.enqueue(VIDEO_QUEUE, videoId);
    } catch (err) {
      if (!this.queue.holds) throw err;
      this.logger.warn({ video: videoId, err: String(err) }, 'video stored but not enqueued; the repair scan will enqueue it');
    }
  }

  /** Checks and stores a request as a queued job without enqueuing it. */
  async accept(principal: Principal, raw: VideoRequestInput, signal?: AbortSignal): Promise<AcceptedVideo> {
    const checked = await this.check(principal, raw, signal);
    try {
      await this.store(checked);
      return checked;
    } catch (err) {
      checked.prepared.release?.();
      throw err;
    }
  }

  /**
   * Every check of a request, and the queued job it becomes, NOT stored yet: StreamVideo starts
   * the render from here and stores the job (store()) while the first frame is made. `whileChecking`
   * runs once the face and the speech checks are under way (a stream starts its encoder there),
   * `onSpeech` as soon as the speech is ready (the encoder reads it); a refusal after either is the
   * caller's to clean up after.
   */
  async check(
    principal: Principal,
    raw: VideoRequestInput,
    signal?: AbortSignal,
    timeline?: StageTimeline,
    whileChecking?: (request: VideoRequest) => void,
    onSpeech?: (speech: DrivingSpeech) => void,
  ): Promise<AcceptedVideo> {
    const request = validateVideoRequest(raw);
    const image = await this.images.load(request.refImage, signal, { uploadable: true, apiKeyId: principal.apiKeyId });
    timeline?.mark('image checked');
    // The face and the speech do not depend on each other: both are checked at once (a stream's
    // first fragment waits for both), and the first refusal stops the other.
    const both = new AbortController();
    const stopBoth = (err: unknown) => {
      both.abort(err);
      throw err;
    };
    const onAbort = () => both.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const checks = [
      this.prepare(image.bytes, request, both.signal).then((face) => {
        timeline?.mark('face prepared');
        if (face.stages) timeline?.durations('face', face.stages);
        return face;
      }, stopBoth),
      this.speech.load(request.drive, principal, both.signal).then((speech) => {
        timeline?.mark('speech ready');
        onSpeech?.(speech);
        return speech;
      }, stopBoth),
    ] as const;
    whileChecking?.(request);
    const [face, voice] = await Promise.allSettled(checks).finally(() => signal?.removeEventListener('abort', onAbort));
    if (face.status === 'fulfilled' && voice.status === 'rejected') face.value.release?.();
    if (signal?.aborted) {
      if (face.status === 'fulfilled') face.value.release?.();
      signal.throwIfAborted();
    }
    if (face.status === 'rejected') throw face.reason;
    if (voice.status === 'rejected') throw voice.reason;
    const prepared = face.value;
    const speech = voice.value;
    const now = this.clock.now();
    const job: VideoJob = {
      id: this.ids.id('video_'),
      apiKeyId: principal.apiKeyId,
      model: request.model,
      status: 'queued',
      progress: 0,
      size: request.size,
      durationSeconds: speech.audio.samples.length / speech.audio.sampleRate,
      createdAt: now,
      completedAt: null,
      expiresAt: this.options.retentionMs === null ? null : now + this.options.retentionMs,
      error: null,
      attempts: 0,
    };
    return { job, prepared, speech, image: image.bytes };
  }

  /** A checked job's inputs, then its row (a row never exists without its inputs). The caller releases the face if this fails. */
  async store(checked: AcceptedVideo, timeline?: StageTimeline): Promise<void> {
    const { job, speech } = checked;
    await this.storeInputs(job, checked.image, speech);
    await this.jobs.insert(job);
    timeline?.mark('job stored');
    this.logger.info({ video: job.id, size: job.size, seconds: Math.round(job.durationSeconds * 10) / 10 }, 'video accepted');
  }

  private async prepare(image: Uint8Array, request: { size: VideoJob['size'] }, signal?: AbortSignal): Promise<PreparedAvatar> {
    try {
      return await this.renderer.prepare(image, request.size, signal);
    } catch (err) {
      if (signal?.aborted || err instanceof NoFaceDetectedError) throw err;
      // A renderer refusing the image's content (it could not decode it) is our invalid_image.
      if (err instanceof ServiceError && err.param === 'ref_image') throw new InvalidImageError('ref_image', err.message);
      if (err instanceof ServiceError) throw err;
      // The header was a valid PNG/JPEG/WEBP header, so a decoder failure means damaged or truncated data.
      this.logger.info({ err: String(err) }, 'ref_image refused: it could not be decoded');
      throw new InvalidImageError('ref_image', "'ref_image' could not be decoded; the file looks damaged or truncated.");
    }
  }

  private async storeInputs(job: VideoJob, image: Uint8Array, speech: DrivingSpeech): Promise<void> {
    const keys = videoBlobKeys(job);
    const info: StoredSpeechInfo = { sampleRate: speech.audio.sampleRate, words: speech.words ? [...speech.words] : null };
    await this.blobs.put(keys.image, image);
    await this.blobs.put(keys.audio, pcmToBytes(speech.audio.samples));
    await this.blobs.put(keys.speech, new TextEncoder().encode(JSON.stringify(info)));
  }
}
