import type { PcmAudio } from '../../src/shared/audio.js';
import type { AudioCodec, DecodeOptions, DecodedAudio } from '../../src/speech/audio-codec.js';
import { InvalidAudioError } from '../../src/shared/errors.js';
import { NoFaceDetectedError } from '../../src/video/errors.js';
import type {
  AvatarRenderer,
  DrivingSpeech,
  JobQueue,
  MediaEncoder,
  PreparedAvatar,
  VideoFrame,
  VideoJobRepository,
  VideoPage,
  VideoPageRequest,
} from '../../src/video/ports.js';
import type { VideoJob, VideoSize } from '../../src/video/video-job.js';
import { videoDimensions } from '../../src/video/video-job.js';

/** A PNG whose IHDR declares width x height, followed by a marker the fake renderer reads. */
export function pngBytes(width: number, height: number, marker = 'FACE'): Uint8Array {
  const out = new Uint8Array(33 + marker.length);
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(out.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  out.set(new TextEncoder().encode(marker), 33);
  return out;
}

export const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** Driving audio the fake codec decodes: 'PCM16:' + raw samples; `seconds` of a 200 Hz tone at 24 kHz. */
export function speechBytes(seconds: number, sampleRate = 24000): Uint8Array {
  const n = Math.round(seconds * sampleRate);
  const samples = new Int16Array(n);
  for (let i = 0; i < n; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 200 * i) / sampleRate));
  const head = new TextEncoder().encode('PCM16:');
  const out = new Uint8Array(head.length + n * 2);
  out.set(head);
  out.set(new Uint8Array(samples.buffer), head.length);
  return out;
}

/** Decodes speechBytes, honouring maxSeconds the way the ffmpeg codec does (stops there). */
export class LimitedTestCodec implements AudioCodec {
  decodes: Array<DecodeOptions | undefined> = [];
  async *encode(): AsyncIterable<Uint8Array> {
    throw new Error('not used');
  }
  async decode(bytes: Uint8Array, sampleRate: number, _signal?: AbortSignal, options?: DecodeOptions): Promise<DecodedAudio> {
    this.decodes.push(options);
    if (new TextDecoder('latin1').decode(bytes.subarray(0, 6)) !== 'PCM16:') throw new InvalidAudioError('not audio');
    const pcm = bytes.slice(6);
    let samples = new Int16Array(pcm.buffer, 0, Math.floor(pcm.length / 2));
    if (options?.maxSeconds) samples = samples.subarray(0, Math.round(options.maxSeconds * sampleRate));
    return { samples, sampleRate, format: 'test' };
  }
}

/** A renderer that finds a face unless the image carries 'NOFACE', and yields one grey frame per 1/fps s. */
export class FakeRenderer implements AvatarRenderer {
  prepared = 0;
  released = 0;
  drives: DrivingSpeech[] = [];
  /** Throw after this many frames (a renderer bug). */
  failAfterFrames: number | null = null;
  /** Milliseconds to wait per frame (to observe a job while it renders). */
  frameDelayMs = 0;
  framesRendered = 0;
  /** Set it to say every avatar renders at this rate (a stream may then open its encoder early). */
  fps?: number;
  /** The clips handed to analyseSpeech() ahead of their render. */
  analysed: DrivingSpeech[] = [];

  analyseSpeech(drive: DrivingSpeech): void {
    this.analysed.push(drive);
  }

  async prepare(image: Uint8Array, size: VideoSize): Promise<PreparedAvatar> {
    const text = new TextDecoder('latin1').decode(image);
    if (text.includes('NOFACE')) throw new NoFaceDetectedError();
    if (text.includes('CORRUPT')) throw new Error('VipsJpeg: premature end of input file');
    this.prepared++;
    const { width, height } = videoDimensions(size);
    const self = this;
    return {
      fps: 25,
      width,
      height,
      async *render(drive: DrivingSpeech, signal?: AbortSignal): AsyncIterable<VideoFrame> {
        self.drives.push(drive);
        const count = Math.ceil((drive.audio.samples.length / drive.audio.sampleRate) * 25);
        for (let i = 0; i < count; i++) {
          signal?.throwIfAborted();
          if (self.failAfterFrames !== null && i >= self.failAfterFrames)
            throw new TypeError("Cannot read properties of undefined (reading 'x')");
          if (self.frameDelayMs) await new Promise((r) => setTimeout(r, self.frameDelayMs));
          self.framesRendered++;
          yield { rgb: new Uint8Array(width * height * 3).fill(128), width, height };
        }
      },
      release: () => {
        self.released++;
      },
    };
  }
}

/** 'INIT' first, then one fragment per 25 frames (and a last one), like frag_keyframe with a 1 s GOP. */
export class FakeEncoder implements MediaEncoder {
  framesEncoded = 0;
  /** Milliseconds its "process" takes to start before it reads the first frame. */
  startDelayMs = 0;
  /** Called when it begins to read frames. */
  onReading: (() => void) | null = null;
  async *encodeFragmentedMp4(
    frames: AsyncIterable<VideoFrame>,
    _audio: PcmAudio,
    options: { fps: number },
    signal?: AbortSignal,
  ): AsyncIterable<Uint8Array> {
    if (this.startDelayMs) await new Promise((r) => setTimeout(r, this.startDelayMs));
    this.onReading?.();
    yield new TextEncoder().encode('INIT');
    let inFragment = 0;
    for await (const _frame of frames) {
      signal?.throwIfAborted();
      this.framesEncoded++;
      if (++inFragment === options.fps) {
        yield new TextEncoder().encode(`FRAG${this.framesEncoded}`);
        inFragment = 0;
      }
    }
    if (inFragment > 0) yield new TextEncoder().encode(`FRAG${this.framesEncoded}`);
  }
}

/** Same contract as the TypeORM repository, in a Map; records every progress written. */
export class InMemoryVideoJobRepository implements VideoJobRepository {
  rows = new Map<string, VideoJob>();
  writes: VideoJob[] = [];
  /** Milliseconds an insert takes (a slow database). */
  insertDelayMs = 0;
  /** An insert fails with this (a full disk). */
  insertError: Error | null = null;
  /** Called as each insert completes. */
  onInserted: ((job: VideoJob) => void) | null = null;
  async insert(job: VideoJob) {
    if (this.insertDelayMs) await new Promise((r) => setTimeout(r, this.insertDelayMs));
    if (this.insertError) throw this.insertError;
    this.rows.set(job.id, structuredClone(job));
    this.onInserted?.(job);
  }
  async find(apiKeyId: string, id: string) {
    const row = this.rows.get(id);
    return row && row.apiKeyId === apiKeyId ? structuredClone(row) : null;
  }
  async get(id: string) {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }
  async update(job: VideoJob) {
    const stored = this.rows.get(job.id);
    if (!stored) return false;
    // The port's rule: a running job's progress and attempts only rise; a finished one stays finished.
    if (job.status === 'in_progress') {
      if (stored.status === 'completed' || stored.status === 'failed') return false;
      job = { ...job, progress: Math.max(stored.progress, job.progress), attempts: Math.max(stored.attempts, job.attempts) };
    }
    this.writes.push(structuredClone(job));
    this.rows.set(job.id, structuredClone(job));
    return true;
  }
  async list(apiKeyId: string, page: VideoPageRequest): Promise<VideoPage> {
    const mine = [...this.rows.values()]
      .filter((v) => v.apiKeyId === apiKeyId)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .filter((v) => !page.after || v.createdAt < page.after.createdAt || (v.createdAt === page.after.createdAt && v.id < page.after.id));
    return { videos: mine.slice(0, page.limit), hasMore: mine.length > page.limit };
  }
  async delete(apiKeyId: string, id: string) {
    const row = await this.find(apiKeyId, id);
    if (row) this.rows.delete(id);
    return row;
  }
  async unfinished() {
    return [...this.rows.values()]
      .filter((j) => j.status === 'queued' || j.status === 'in_progress')
      .sort((a, b) => a.createdAt - b.createdAt);
  }
  async countUnfinished(apiKeyId: string) {
    return (await this.unfinished()).filter((j) => j.apiKeyId === apiKeyId).length;
  }
  async expired(now: number, limit: number) {
    return [...this.rows.values()]
      .filter((j) => (j.status === 'completed' || j.status === 'failed') && j.expiresAt !== null && j.expiresAt <= now)
      .slice(0, limit);
  }
}

export class RecordingQueue implements JobQueue {
  enqueued: string[] = [];
  async enqueue(_queue: string, jobId: string) {
    this.enqueued.push(jobId);
  }
  async consume(): Promise<() => Promise<void>> {
    return async () => undefined;
  }
}

/** A queue shared by processes (Redis-like): it knows which jobs it still holds. */
export class DurableRecordingQueue extends RecordingQueue {
  held = new Set<string>();
  async holds(_queue: string, jobId: string): Promise<boolean> {
    return this.held.has(jobId);
  }
}
