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
}

/** Frames + audio into fragmented MP4 bytes, yielded as fragments are produced. */
export interface MediaEncoder {
  encodeFragmentedMp4(
    frames: AsyncIterable<VideoFrame>,
    audio: PcmAudio,
    options: { fps: number; width: number; height: number },
    signal?: AbortSignal,
  ): AsyncIterable<Uint8Array>;
}

export interface VideoJobRepository {
  insert(job: VideoJob): Promise<void>;
  /** Scoped by key: another key's job is reported as absent. */
  find(apiKeyId: string, id: string): Promise<VideoJob | null>;
  update(job: VideoJob): Promise<void>;
  /** Jobs a restarted worker must pick up again (queued or in_progress). */
  unfinished(): Promise<VideoJob[]>;
}

/** Work handed to background workers (in-process by default; Redis-backed across processes). */
export interface JobQueue {
  enqueue(queue: string, jobId: string): Promise<void>;
  /** Registers the handler for a queue; resolves the stop function. */
  consume(queue: string, handler: (jobId: string, signal: AbortSignal) => Promise<void>): Promise<() => Promise<void>>;
}
