import {
  sameEncoderFormat,
  TopLevelBoxWatcher,
  videoFrameCount,
  type EncoderFormat,
  type MediaEncoder,
  type OpenedMediaEncoder,
  type PcmAudio,
  type VideoFrame,
} from '@svc/core';
import { processRunning, throwIfAborted } from '@svc/adapters-runtime';
import { runFfmpeg } from './ffmpeg/run-ffmpeg.js';
import { pcmToWav } from '@svc/adapters-runtime';

export interface FfmpegVideoEncoderOptions {
  /** x264 constant rate factor (lower = better, bigger); default 23. */
  crf?: number;
  /** x264 preset; default `veryfast` (well above real time on 2 cores with room left for the renderer). */
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
  /**
   * Keep one ffmpeg started ahead for the next stream, of the format last used, spawned once a
   * stream is done with its own: a stream then forks nothing (the fork blocks the server's thread
   * for a time growing with its memory; docs/video.md, Speed). Costs one waiting ffmpeg process
   * (mostly shared pages) after the first video; none before it. close() kills it. Default false.
   */
  standby?: boolean;
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
  /** The ffmpeg kept waiting for the next stream (options.standby), and its format. */
  private spare: StartedFfmpeg | null = null;
  private closed = false;

  constructor(private readonly options: FfmpegVideoEncoderOptions = {}) {}

  async *encodeFragmentedMp4(
    frames: AsyncIterable<VideoFrame>,
    audio: PcmAudio,
    format: EncoderFormat,
    signal?: AbortSignal,
  ): AsyncGenerator<Uint8Array, void, undefined> {
    throwIfAborted(signal);
    yield* this.open(format, signal).encode(frames, audio, signal);
  }

  /**
   * An ffmpeg for this format, waiting on its pipes for the frames and the audio given later: the
   * standby one when it is alive and of this format, else one spawned now.
   */
  open(format: EncoderFormat, signal?: AbortSignal): OpenedMediaEncoder {
    const { fps, width, height } = format;
    if (!(fps > 0) || width % 2 !== 0 || height % 2 !== 0) {
      throw new Error(`unsupported video format ${width}x${height}@${fps} (even sizes, fps > 0)`);
    }
    let started = this.takeSpare(format);
    if (started) format.onStarted?.();
    else started = this.start(format, format.onStarted);
    const { stop, output, first, frames, wav } = started;
    const onAbort = (): void => stop.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    let used = false;
    let preloaded = false;
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    return {
      format: { fps, width, height },
      preload: (audio) => {
        if (used || preloaded) return;
        preloaded = true;
        wav.resolve(pcmToWav(padToFrames(audio, fps)));
      },
      encode: (input, audio, encodeSignal) => {
        if (used) throw new Error('an opened encoder encodes once');
        used = true;
        frames.resolve(input);
        if (!preloaded) wav.resolve(pcmToWav(padToFrames(audio, fps)));
        // The next video's ffmpeg is started once this one's first fragment has left: well before
        // the next request, and not on this one's way to its first fragment.
        return drain(output, first, stop, encodeSignal, () => this.refill(format), done);
      },
      close: () => {
        if (used) return;
        used = true;
        done();
        // Untouched (a refused request): it waits for the next video instead of being killed and
        // replaced; one that has read this request's audio cannot.
        if (this.options.standby && !this.closed && !this.spare && !preloaded && started.alive()) this.spare = started;
        else started.end(new Error('encoder closed unused'));
        this.refill(format);
      },
    };
  }

  /** Kills the standby ffmpeg and starts no other (the service is stopping). */
  close(): void {
    this.closed = true;
    this.spare?.end(new Error('encoder closed'));
    this.spare = null;
  }

  private takeSpare(format: EncoderFormat): StartedFfmpeg | null {
    const spare = this.spare;
    this.spare = null;
    if (!spare) return null;
    if (spare.alive() && sameEncoderFormat(spare.format, format)) return spare;
    spare.end(new Error('standby encoder not usable'));
    return null;
  }

  /**
   * With options.standby, the next ffmpeg is spawned once a stream's own has sent its first fragment
   * (or was closed unused): never before the first video (an idle server keeps no ffmpeg), one at a
   * time, for the format last used.
   */
  private refill(format: EncoderFormat): void {
    if (!this.options.standby || this.closed || this.spare) return;
    setImmediate(() => {
      if (this.closed || this.spare) return;
      this.spare = this.start({ fps: format.fps, width: format.width, height: format.height });
    });
  }

  /**
   * ffmpeg spawned after one turn of the event loop, waiting for its input. Spawning forks this
   * process, which blocks its thread for a time that grows with its memory (docs/video.md, Speed);
   * the turn lets work the caller has just handed to
   * other threads (a face to detect, a first frame to render) reach them and run during the fork.
   */
  private start(format: Pick<EncoderFormat, 'fps' | 'width' | 'height'>, onStarted?: () => void): StartedFfmpeg {
    const { width, height } = format;
    const stop = new AbortController();
    const frames = deferred<AsyncIterable<VideoFrame>>();
    const wav = deferred<Uint8Array>();
    // The audio goes in as a WAV on a pipe of its own: no scratch file to create, write and remove
    // before the spawn (4-60 ms of file I/O under load).
    let pid: number | null = null;
    const output = runFfmpeg({
      args: this.arguments(format),
      stdin: frameBytes(frames.promise, width, height),
      pipes: [wav.promise],
      signal: stop.signal,
      binary: this.options.binary,
      onSpawn: (spawned) => {
        pid = spawned;
        this.options.onSpawn?.(spawned);
        onStarted?.();
      },
    });
    const first = new Promise((resolve) => setImmediate(resolve)).then(() => output.next());
    // A waiting ffmpeg writes nothing before its audio: if this settles first, it has died.
    let exited = false;
    first.then(
      () => (exited = true),
      () => (exited = true),
    );
    return {
      format: { fps: format.fps, width, height },
      stop,
      output,
      first,
      frames,
      wav,
      // The process is asked too: one killed while it waited may be gone before its pipes say so
      // (a busy event loop reads their end later), and a video given to it would fail.
      alive: () => !exited && !stop.signal.aborted && (pid === null || processRunning(pid)),
      end: (reason) => {
        frames.reject(reason);
        wav.reject(reason);
        stop.abort(reason);
      },
    };
  }

  private arguments(format: { fps: number; width: number; height: number }): string[] {
    const { fps, width, height } = format;
    const gopFrames = Math.max(1, Math.round(fps * (this.options.keyframeSeconds ?? 1)));
    const gop = String(gopFrames);
    const firstFrames = this.options.firstFragmentSeconds === undefined ? 1 : Math.round(fps * this.options.firstFragmentSeconds);
    // One extra keyframe that closes a short first fragment; x264 counts the next GOP from it.
    const firstKeyframe = firstFrames > 0 && firstFrames < gopFrames ? ['-force_key_frames', `expr:eq(n,0)+eq(n,${firstFrames})`] : [];
    // The video's first frame is a black PRIMING frame, written at spawn and cut by the trim filter
    // before the encoder: ffmpeg sets up its scaler, x264 and the MP4 header on it as soon as the
    // WAV is there (preload(): when the speech is ready, while the face is still being found), so
    // the real first frame is only converted and encoded, and the first fragment leaves sooner
    // (docs/video.md, Speed); the output is the same, frame for frame.
    return [
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-s',
      `${width}x${height}`,
      '-r',
      String(fps),
      '-i',
      'pipe:0',
      '-f',
      'wav',
      '-i',
      'pipe:3',
      '-map',
      '0:v:0',
      '-map',
      '1:a:0',
      '-vf',
      'trim=start_frame=1,setpts=PTS-STARTPTS',
      '-c:v',
      'libx264',
      '-preset',
      this.options.preset ?? 'veryfast',
      '-tune',
      'zerolatency',
      '-profile:v',
      'baseline',
      '-level',
      '3.0',
      '-pix_fmt',
      'yuv420p',
      '-crf',
      String(this.options.crf ?? 23),
      '-bf',
      '0',
      '-g',
      gop,
      '-keyint_min',
      gop,
      '-sc_threshold',
      '0',
      ...firstKeyframe,
      '-c:a',
      'aac',
      '-b:a',
      this.options.audioBitrate ?? '96k',
      '-ar',
      '48000',
      '-ac',
      '1',
      '-movflags',
      'frag_keyframe+empty_moov+default_base_moof',
      '-f',
      'mp4',
      'pipe:1',
    ];
  }
}

/** After the first moof has been taken, the wait before the standby ffmpeg is spawned (its mdat leaves meanwhile). */
const AFTER_FIRST_FRAGMENT_MS = 200;

/** An ffmpeg started ahead of its input. */
interface StartedFfmpeg {
  format: Pick<EncoderFormat, 'fps' | 'width' | 'height'>;
  stop: AbortController;
  output: AsyncGenerator<Uint8Array, void, undefined>;
  first: Promise<IteratorResult<Uint8Array, void>>;
  frames: Deferred<AsyncIterable<VideoFrame>>;
  wav: Deferred<Uint8Array>;
  /** Spawned (or about to be) and not exited. */
  alive(): boolean;
  /** Kills it (or keeps it from spawning) unused. */
  end(reason: Error): void;
}

/** The audio, padded with silence (or trimmed) to exactly ceil(duration * fps) frames' worth. */
export function padToFrames(audio: PcmAudio, fps: number): PcmAudio {
  const frames = videoFrameCount(audio, fps);
  const length = Math.round((frames / fps) * audio.sampleRate);
  if (length === audio.samples.length) return audio;
  const samples = new Int16Array(length);
  samples.set(audio.samples.subarray(0, length));
  return { samples, sampleRate: audio.sampleRate };
}

/** The priming frame (black, dropped by ffmpeg's trim filter), then the frames once they are given. */
async function* frameBytes(source: Promise<AsyncIterable<VideoFrame>>, width: number, height: number): AsyncGenerator<Uint8Array> {
  const size = width * height * 3;
  yield new Uint8Array(size);
  for await (const frame of await source) {
    if (frame.width !== width || frame.height !== height || frame.rgb.byteLength !== size) {
      throw new Error(`frame of ${frame.width}x${frame.height} (${frame.rgb.byteLength} bytes) in a ${width}x${height} RGB24 stream`);
    }
    yield frame.rgb;
  }
}

/**
 * The fragments of a started ffmpeg, its first already asked for; `signal` (the encode's) stops it.
 * Leaving early ends the process (runFfmpeg's finally) before this returns. `onFirstTaken` a little
 * after the consumer has taken the first fragment's moof (or when the encode ends, if sooner).
 */
async function* drain(
  output: AsyncGenerator<Uint8Array, void, undefined>,
  first: Promise<IteratorResult<Uint8Array, void>>,
  stop: AbortController,
  signal: AbortSignal | undefined,
  onFirstTaken: () => void,
  done: () => void,
): AsyncGenerator<Uint8Array, void, undefined> {
  const onAbort = (): void => stop.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const firstMoof = new TopLevelBoxWatcher('moof');
  let called = false;
  const call = (): void => {
    if (!called) onFirstTaken();
    called = true;
  };
  try {
    for (let next = await first; !next.done; next = await output.next()) {
      yield next.value;
      // the first fragment has begun to leave; its mdat follows within the next chunks
      if (!called && firstMoof.push(next.value)) setTimeout(call, AFTER_FIRST_FRAGMENT_MS).unref();
    }
  } finally {
    call();
    signal?.removeEventListener('abort', onAbort);
    done();
    await output.return();
  }
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // a rejection nobody awaits (an encoder closed before its spawn)
  return { promise, resolve, reject };
}
