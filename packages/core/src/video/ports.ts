import type { PcmAudio } from '../shared/audio.js';
import type { VideoJob, VideoSize } from './video-job.js';

/**
 * Ports of the avatar video capability (implemented in the next issue). Declared now so the
 * realtime and speech code that video reuses (SynthesizeSpeech, MediaFetcher, AudioCodec) has a
 * fixed place to plug into.
 */

/** One rendered frame, RGB24, row-major, width*height*3 bytes. */
export interface VideoFrame {
  rgb: Uint8Array;
  width: number;
  height: number;
}

/** Animates one face image from driving audio (face landmarks + mouth shapes in the default adapter). */
export interface AvatarRenderer {
  prepare(image: Uint8Array, size: VideoSize, signal?: AbortSignal): Promise<PreparedAvatar>;
}

export interface PreparedAvatar {
  fps: number;
  /** Frames in order, produced as the audio is analysed; one frame per 1/fps s of audio. */
  render(audio: PcmAudio, signal?: AbortSignal): AsyncIterable<VideoFrame>;
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
