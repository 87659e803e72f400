import type { PcmAudio } from '../shared/audio.js';
import type { WordTiming } from '../speech/speech-synthesizer.js';
import type { VideoJob, VideoSize } from './video-job.js';

/**
 * Ports of the avatar video capability.
 */

/** One rendered frame, RGB24, row-major, width*height*3 bytes. */
export interface VideoFrame {
  rgb: Uint8Array;
  width: number;
  height: number;
}

/**
 * What drives the mouth: the speech audio, and (when the audio was synthesized from `input_tts`) the
 * synthesizer's word timings in seconds of that audio. Without words the renderer reads the mouth
 * shapes from the audio itself (energy and spectral shape).
 */
export interface DrivingSpeech {
  audio: PcmAudio;
  words?: readonly WordTiming[];
}

/**
 * Animates one face image from driving speech (face landmarks + mouth shapes in the default adapter; a
 * neural lip-sync model can replace it behind this port).
 */
export interface AvatarRenderer {
  /**
   * Decodes the image (EXIF orientation, greyscale, CMYK, alpha handled), finds the largest face and
   * frames it into `size` (face centred, headroom, no stretching). Throws NoFaceDetectedError when
   * the photo holds no face.
   */
  prepare(image: Uint8Array, size: VideoSize, signal?: AbortSignal): Promise<PreparedAvatar>;
  /** Frames per second of every avatar it prepares, when fixed: a stream can then start its encoder before the face is ready. */
  readonly fps?: number;
  /**
   * Reads a clip's speech now (what the face's motion follows: its loudness, its mouth shapes),
   * so a later render() of this same `drive` starts from it. A stream calls it as soon as its
   * speech is ready, while the face is still being found. Optional; a hint that may be ignored.
   */
  analyseSpeech?(drive: DrivingSpeech): void;
  /** Stops its worker threads; called once at shutdown. */
  close?(): Promise<void>;
}

export interface PreparedAvatar {
  readonly fps: number;
  readonly width: number;
  readonly height: number;
  /**
   * Frames in order, one per 1/fps s of audio: exactly ceil(durationSeconds * fps) of them, produced
   * lazily as they are pulled (never all held at once).
   */
  render(drive: DrivingSpeech, signal?: AbortSignal): AsyncIterable<VideoFrame>;
  /** Frees what prepare() holds (tensors, buffers). */
  release?(): void;
  /** How long prepare()'s own steps took, in ms (decode, detect, frame...; diagnostics only). */
  readonly stages?: Readonly<Record<string, number>>;
}

/** Frames + audio into fragmented MP4 bytes, yielded as fragments are produced (`onStarted`: the encoder runs; diagnostics). */
export interface MediaEncoder {
  encodeFragmentedMp4(
    frames: AsyncIterable<VideoFrame>,
    audio: PcmAudio,
    options: EncoderFormat,
    signal?: AbortSignal,
  ): AsyncIterable<Uint8Array>;
  /**
   * Starts an encoder for this format before its frames and audio exist: a live stream opens it
   * while the face and the speech are prepared, so starting the encoder (a process spawn that
   * blocks the caller's thread for 15-300 ms) is off the first fragment's path. It encodes once;
   * close() ends it unused (a refused request). Aborting `signal` ends it too.
   */
  open?(format: EncoderFormat, signal?: AbortSignal): OpenedMediaEncoder;
  /** Ends what it keeps running between videos (a standby process); called once at shutdown. */
  close?(): void;
}

export interface EncoderFormat {
  fps: number;
  width: number;
  height: number;
  /** Called once the encoder has started (its process spawned). */
  onStarted?: () => void;
}

/** Whether two encoder formats make the same stream (an encoder started ahead fits only its own). */
export const sameEncoderFormat = (
  a: Pick<EncoderFormat, 'fps' | 'width' | 'height'>,
  b: Pick<EncoderFormat, 'fps' | 'width' | 'height'>,
): boolean => a.fps === b.fps && a.width === b.width && a.height === b.height;

/** An encoder started ahead of its input (MediaEncoder.open). */
export interface OpenedMediaEncoder {
  readonly format: Readonly<Pick<EncoderFormat, 'fps' | 'width' | 'height'>>;
  /** As encodeFragmentedMp4, once; a second call throws. */
  encode(frames: AsyncIterable<VideoFrame>, audio: PcmAudio, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  /**
   * The audio, handed over as soon as it exists (a stream's speech is usually ready before its
   * face): the encoder reads it while the face and the first frame are made. encode() is then
   * given the same audio. An encoder closed after this is not kept for another video.
   */
  preload?(audio: PcmAudio): void;
  /** Ends the encoder if encode() has not been called (its process killed); harmless afterwards. */
  close(): void;
}

export interface VideoPageRequest {
  limit: number;
  /** Continue after this job (newest-first order): its creation time and id. */
  after?: { createdAt: number; id: string };
}

export interface VideoPage {
  videos: VideoJob[];
  hasMore: boolean;
}

/**
 * Video job rows. Everything a caller reaches is scoped by API key (another key's job is reported
 * as absent); `get`, `unfinished` and `expired` are for the worker and the sweeper, which act for
 * the service, not for a caller.
 */
export interface VideoJobRepository {
  insert(job: VideoJob): Promise<void>;
  find(apiKeyId: string, id: string): Promise<VideoJob | null>;
  get(id: string): Promise<VideoJob | null>;
  /**
   * Writes the job's state; resolves false when the row is gone (the video was deleted meanwhile).
   * A write of a running (in_progress) job never lowers the stored progress or attempts and never
   * reopens a finished job (then it resolves false too): two renders of one job (a worker whose
   * lock expired under load, still writing after another took it over) cannot move it backwards.
   */
  update(job: VideoJob): Promise<boolean>;
  /** Newest first; ties on creation time are ordered by id, descending. */
  list(apiKeyId: string, page: VideoPageRequest): Promise<VideoPage>;
  /** Removes the row; resolves to the removed job, or null when there was none. */
  delete(apiKeyId: string, id: string): Promise<VideoJob | null>;
  /** Jobs a restarted worker must pick up again (queued or in_progress), oldest first. */
  unfinished(): Promise<VideoJob[]>;
  /** How many jobs of this key are queued or in_progress. */
  countUnfinished(apiKeyId: string): Promise<number>;
  /** Finished jobs whose expiry time is at or before `now`, at most `limit` of them. */
  expired(now: number, limit: number): Promise<VideoJob[]>;
}

/** Work handed to background workers (in-process by default; Redis-backed across processes). */
export interface JobQueue {
  enqueue(queue: string, jobId: string): Promise<void>;
  /** Registers the handler for a queue; resolves the stop function. */
  consume(queue: string, handler: (jobId: string, signal: AbortSignal) => Promise<void>): Promise<() => Promise<void>>;
  /**
   * Durable queues only (shared by several processes, e.g. Redis): whether the queue still holds the
   * job (waiting, running or about to be retried). Such a queue re-delivers the job of a worker that
   * died, so a job it holds is never re-queued from its row. An in-process queue has no such method.
   */
  holds?(queue: string, jobId: string): Promise<boolean>;
  /** Stops every consumer (running jobs are aborted; a durable queue keeps them) and its connections; once, at shutdown. */
  close?(): Promise<void>;
}
