import type { MediaEncoder, PcmAudio, VideoFrame } from '@svc/core';
import { throwIfAborted } from '../runtime/abort.js';
import { runFfmpeg } from './ffmpeg/run-ffmpeg.js';
import { pcmToWav } from './wav-writer.js';

export interface FfmpegVideoEncoderOptions {
  /** x264 constant rate factor (lower = better, bigger); default 23. */
  crf?: number;
  /** x264 preset; default `veryfast` (5-8x real time on 2 cores with room left for the renderer). */
  preset?: string;
  /**
   * Seconds between keyframes = length of one fMP4 fragment (frag_keyframe); default 1. A player
   * can start after the first fragment, so 0.5 halves the wait for the first picture of a stream at
   * the cost of a slightly bigger file.
   */
  keyframeSeconds?: number;
  /**
   * Length of the FIRST fragment in seconds, rounded to whole frames (an extra keyframe there;
   * later keyframes follow every keyframeSeconds from it); default: one frame. The first moof of a
   * stream then leaves as soon as it holds one decodable picture (the keyframe), not after 25
   * frames: a live player shows the face ~1 s sooner. 0 or >= keyframeSeconds: no extra keyframe.
   */
  firstFragmentSeconds?: number;
  /** AAC bitrate; default 96k. */
  audioBitrate?: string;
  /** Binary to run (tests); defaults to the static build from @ffmpeg-installer/ffmpeg. */
  binary?: string;
  /** Called with ffmpeg's pid right after it starts (tests check that none outlives an encode). */
  onSpawn?: (pid: number) => void;
}

/**
 * Frames + speech into a fragmented MP4 that Media Source Extensions play as it arrives.
 *
 * ffmpeg runs as one streaming pipe: raw RGB24 frames on stdin, the audio as a WAV on a second
 * pipe (fd 3), the fMP4 on stdout, yielded chunk by chunk as ffmpeg writes it. Backpressure runs end to
 * end (a slow consumer stops ffmpeg, which stops pulling frames, which stops the renderer).
 *
 * Choices, all for browser playback while streaming:
 * - H.264 constrained baseline (no B-frames: Chrome may buffer a whole DPB otherwise), level 3.0,
 *   which every MSE implementation plays; the codec string is read back from the avcC (see
 *   mp4-codec-string.ts), for 640x640/640x480/480x640 at 25 fps it is `avc1.42C01E`.
 * - A keyframe every second (GOP = fps, no scene-cut keyframes) and `frag_keyframe`, so one fragment
 *   is one second; the first holds just the first frame (one extra keyframe right after it), so a
 *   player can start after one frame instead of 25.
 * - `empty_moov+default_base_moof`: what MSE needs.
 * - AAC-LC (`mp4a.40.2`) at 48 kHz mono; the audio is padded with silence to the frames' duration
 *   so audio and video are the same length.
 */
export class FfmpegVideoEncoder implements MediaEncoder {
  constructor(private readonly options: FfmpegVideoEncoderOptions = {}) {}

  async *encodeFragmentedMp4(
    frames: AsyncIterable<VideoFrame>,
    audio: PcmAudio,
    format: { fps: number; width: number; height: number; onStarted?: () => void },
    signal?: AbortSignal,
  ): AsyncGenerator<Uint8Array, void, undefined> {
    throwIfAborted(signal);
    const { fps, width, height } = format;
    if (!(fps > 0) || width % 2 !== 0 || height % 2 !== 0) {
      throw new Error(`unsupported video format ${width}x${height}@${fps} (even sizes, fps > 0)`);
    }
    // Spawning forks this process, which blocks its thread for a time that grows with its memory
    // (~20 ms at 44 MB, 150-300 ms at 844 MB on the loaded 2-core VM): one turn of the event loop
    // first lets a caller's first frame, already asked for, reach its render thread, which renders
    // it during the fork instead of after.
    await new Promise((resolve) => setImmediate(resolve));
    throwIfAborted(signal);
    // The audio goes in as a WAV on a pipe of its own: no scratch file to create, write and remove
    // before the spawn (4-60 ms of file I/O under load).
    yield* runFfmpeg({
      args: this.arguments(format),
      stdin: frameBytes(frames, width, height),
      pipes: [pcmToWav(padToFrames(audio, fps))],
      signal,
      binary: this.options.binary,
      onSpawn: (pid) => {
        this.options.onSpawn?.(pid);
        format.onStarted?.();
      },
    });
  }

  private arguments(format: { fps: number; width: number; height: number }): string[] {
    const { fps, width, height } = format;
    const gopFrames = Math.max(1, Math.round(fps * (this.options.keyframeSeconds ?? 1)));
    const gop = String(gopFrames);
    const firstFrames = this.options.firstFragmentSeconds === undefined ? 1 : Math.round(fps * this.options.firstFragmentSeconds);
    // One extra keyframe that closes a short first fragment; x264 counts the next GOP from it.
    const firstKeyframe = firstFrames > 0 && firstFrames < gopFrames ? ['-force_key_frames', `expr:eq(n,0)+eq(n,${firstFrames})`] : [];
    return [
      '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-r', String(fps), '-i', 'pipe:0',
      '-f', 'wav', '-i', 'pipe:3',
      '-map', '0:v:0', '-map', '1:a:0',
      '-c:v', 'libx264', '-preset', this.options.preset ?? 'veryfast', '-tune', 'zerolatency',
      '-profile:v', 'baseline', '-level', '3.0', '-pix_fmt', 'yuv420p',
      '-crf', String(this.options.crf ?? 23), '-bf', '0',
      '-g', gop, '-keyint_min', gop, '-sc_threshold', '0', ...firstKeyframe,
      '-c:a', 'aac', '-b:a', this.options.audioBitrate ?? '96k', '-ar', '48000', '-ac', '1',
      '-movflags', 'frag_keyframe+empty_moov+default_base_moof',
      '-f', 'mp4', 'pipe:1',
    ];
  }
}

/** The audio, padded with silence (or trimmed) to exactly ceil(duration * fps) frames' worth. */
export function padToFrames(audio: PcmAudio, fps: number): PcmAudio {
  const frames = Math.ceil((audio.samples.length / audio.sampleRate) * fps - 1e-9);
  const length = Math.round((frames / fps) * audio.sampleRate);
  if (length === audio.samples.length) return audio;
  const samples = new Int16Array(length);
  samples.set(audio.samples.subarray(0, length));
  return { samples, sampleRate: audio.sampleRate };
}

async function* frameBytes(frames: AsyncIterable<VideoFrame>, width: number, height: number): AsyncGenerator<Uint8Array> {
  const size = width * height * 3;
  for await (const frame of frames) {
    if (frame.width !== width || frame.height !== height || frame.rgb.byteLength !== size) {
      throw new Error(`frame of ${frame.width}x${frame.height} (${frame.rgb.byteLength} bytes) in a ${width}x${height} RGB24 stream`);
    }
    yield frame.rgb;
  }
}
