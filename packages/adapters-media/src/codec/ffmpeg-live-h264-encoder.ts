import { AsyncChannel, type EncodedVideoFrame, type LiveVideoEncoder, type LiveVideoStream, type VideoFrame } from '@svc/core';
import { runFfmpeg } from './ffmpeg/run-ffmpeg.js';
import { FlvH264Reader } from './flv-h264-reader.js';

export interface FfmpegLiveH264EncoderOptions {
  /** Seconds between keyframes (a receiver that lost packets recovers at the next one); default 2. */
  keyframeSeconds?: number;
  /** x264 constant rate factor; default 26 (a talking head on a still background is cheap). */
  crf?: number;
  /** Peak bitrate, kbit/s (VBV, so a keyframe does not burst the network); default 1500. */
  maxKbps?: number;
  /** Binary to run (tests); defaults to the static build from @ffmpeg-installer/ffmpeg. */
  binary?: string;
  /** Called with ffmpeg's pid when it starts (tests check none is left behind). */
  onSpawn?: (pid: number) => void;
}

/**
 * H.264 for a call's video track: one long-lived ffmpeg (libx264) per call, raw RGB24 frames in on
 * stdin, one access unit out per frame. Chosen for latency, not size: `ultrafast` +
 * `zerolatency` (no lookahead, no B-frames, no frame threads: a frame leaves as soon as it is
 * encoded), constrained baseline level 3.1 (`42e01f`, what every WebRTC browser decodes with
 * packetization-mode 1), one thread (a call's encoder must not take the second core from the voice
 * pipeline), a keyframe every keyframeSeconds. The output is FLV, read tag by tag (FlvH264Reader),
 * so each frame is known complete as soon as ffmpeg writes it.
 */
export class FfmpegLiveH264Encoder implements LiveVideoEncoder {
  constructor(private readonly options: FfmpegLiveH264EncoderOptions = {}) {}

  open(format: { width: number; height: number; fps: number }): LiveVideoStream {
    const { width, height, fps } = format;
    if (!(fps > 0) || width % 2 !== 0 || height % 2 !== 0)
      throw new Error(`unsupported video format ${width}x${height}@${fps} (even sizes, fps > 0)`);
    const gop = String(Math.max(1, Math.round(fps * (this.options.keyframeSeconds ?? 2))));
    const maxKbps = this.options.maxKbps ?? 1500;
    // prettier-ignore
    const args = [
      '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-r', String(fps), '-i', 'pipe:0',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-threads', '1',
      '-profile:v', 'baseline', '-level', '3.1', '-pix_fmt', 'yuv420p',
      '-crf', String(this.options.crf ?? 26), '-maxrate', `${maxKbps}k`, '-bufsize', `${maxKbps}k`,
      '-g', gop, '-keyint_min', gop, '-sc_threshold', '0', '-bf', '0',
      '-f', 'flv', '-flush_packets', '1', 'pipe:1',
    ];
    return new FfmpegLiveH264Stream(args, width * height * 3, this.options);
  }
}

class FfmpegLiveH264Stream implements LiveVideoStream {
  private readonly input = new AsyncChannel<Uint8Array>();
  private readonly pending: { resolve: (f: EncodedVideoFrame) => void; reject: (err: unknown) => void }[] = [];
  private readonly stop = new AbortController();
  private failure: unknown = null;

  constructor(
    args: string[],
    private readonly frameBytes: number,
    options: FfmpegLiveH264EncoderOptions,
  ) {
    const reader = new FlvH264Reader();
    const output = runFfmpeg({ args, stdin: this.input, signal: this.stop.signal, binary: options.binary, onSpawn: options.onSpawn });
    void (async () => {
      for await (const chunk of output) {
        for (const frame of reader.push(chunk)) this.pending.shift()?.resolve(frame);
      }
      throw new Error('the H.264 encoder stopped');
    })().catch((err: unknown) => this.fail(err));
  }

  encode(frame: VideoFrame): Promise<EncodedVideoFrame> {
    if (this.failure) return Promise.reject(this.failure);
    if (frame.rgb.byteLength !== this.frameBytes)
      return Promise.reject(new Error(`frame of ${frame.rgb.byteLength} bytes in a stream of ${this.frameBytes}-byte frames`));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.input.push(frame.rgb);
    });
  }

  close(): void {
    this.fail(new Error('the H.264 encoder was closed'));
  }

  private fail(err: unknown): void {
    if (this.failure) return;
    this.failure = err;
    this.stop.abort(err);
    this.input.end();
    for (const p of this.pending.splice(0)) p.reject(err);
  }
}
