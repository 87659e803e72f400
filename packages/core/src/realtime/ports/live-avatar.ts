import type { VideoFrame } from '../../video/ports.js';
import type { VideoSize } from '../../video/video-job.js';

/**
 * Ports of the live avatar: a talking head on a realtime call's video track, driven by the reply
 * audio while the call plays it. Times are milliseconds of the call's media clock (the clock the
 * transport stamps its RTP with), so audio and picture share one timeline.
 */

/** Prepares faces for live sessions (the embedded renderer: face-api landmarks + a face warp). */
export interface LiveAvatarRenderer {
  /**
   * Decodes the photo, finds the largest face and frames it into `size`, as the video renderer
   * does; throws NoFaceDetectedError, or an invalid-parameter error for bytes that are no image.
   */
  open(image: Uint8Array, options: { size: VideoSize }, signal?: AbortSignal): Promise<LiveAvatar>;
}

/** One face, live: fed with reply audio as it is scheduled, asked for the frame of any moment. */
export interface LiveAvatar {
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /**
   * Reply audio, mono s16 at `sampleRate`, whose first sample plays at `atMs`. Chunks arrive in
   * playback order, ahead of their time (the transport schedules them before sending them).
   */
  speak(samples: Int16Array, sampleRate: number, atMs: number): void;
  /** Audio from `atMs` on will never play (barge-in, cancel): the mouth comes to rest there. */
  cut(atMs: number): void;
  /**
   * The frame shown at `atMs`: the mouth speaking the audio of that moment, or at rest between
   * replies; blinks and small head motion run all the time. Frames are asked for in time order.
   */
  frame(atMs: number, signal?: AbortSignal): Promise<VideoFrame>;
  /** Frees the face and the renderer's state. */
  close(): void;
}

/** One access unit of H.264: its NAL units (no start codes), and whether it starts a GOP (IDR, with SPS/PPS). */
export interface EncodedVideoFrame {
  nalUnits: Uint8Array[];
  keyframe: boolean;
}

/** Low-latency H.264 (constrained baseline) for a call's video track: one access unit out per frame in. */
export interface LiveVideoEncoder {
  open(format: { width: number; height: number; fps: number }): LiveVideoStream;
}

export interface LiveVideoStream {
  /**
   * Encodes the next frame; resolves with its access unit. Frames are encoded one at a time, in
   * order; a keyframe (with SPS/PPS) comes first and then at a fixed interval, so a receiver that
   * lost packets recovers without asking.
   */
  encode(frame: VideoFrame): Promise<EncodedVideoFrame>;
  close(): void;
}
