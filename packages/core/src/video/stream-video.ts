import { AsyncChannel } from '../shared/async-channel.js';
import type { Principal } from '../auth/api-key.js';
import type { Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { AcceptedVideo, CreateVideo } from './create-video.js';
import { LiveVideoLimitError } from './errors.js';
import { RenderInterruptedError, type RenderVideoJob } from './render-video-job.js';
import { StageTimeline, type StageMark } from './stage-timeline.js';
import { TopLevelBoxWatcher } from './top-level-box-watcher.js';
import type { OpenedMediaEncoder } from './ports.js';
import type { VideoJob } from './video-job.js';
import type { VideoRequestInput } from './video-request.js';

export interface StreamVideoOptions {
  /** Live renders this process runs at once (each needs about a core); one more is refused with 429 before any work. Default: unlimited. */
  maxConcurrent?: number;
  /** Times the stages of each stream (logged at the first fragment); without it nothing is timed. */
  clock?: Clock;
}

export interface StreamRequestOptions {
  /** Clock time the request arrived (before its body was read), the origin of its timeline. */
  receivedAt?: number;
}

export interface StreamedVideo {
  job: VideoJob;
  /**
   * The fragmented MP4 as it is encoded. Stopping to read (a client that goes away) does not stop
   * the render: the stored video completes either way.
   */
  fragments: AsyncIterable<Uint8Array>;
}

/**
 * POST /v1/videos/stream: the same checks and stored job as CreateVideo, then the render starts at
 * once in this process (not behind queued jobs, so the first fragment leaves early) from the face
 * the check already prepared. The render belongs to the service, not to the request: its signal is
 * the service's shutdown signal, so a disconnecting client only stops its own copy of the bytes.
 */
export class StreamVideo {
  private readonly shutdown = new AbortController();
  private readonly running = new Set<Promise<unknown>>();
  /** Streams admitted and not finished (checking, or rendering). */
  private live = 0;
  private readonly timelineListeners = new Set<(video: string, stages: readonly StageMark[]) => void>();

  constructor(
    private readonly create: CreateVideo,
    private readonly render: RenderVideoJob,
    private readonly logger: Logger = silentLogger,
    private readonly options: StreamVideoOptions = {},
  ) {}

  /**
   * `raw` may be a function that reads the request body: it is called only once the stream has a
   * slot, so a refused stream (429) costs no body read, no decoding, no detection.
   */
  async execute(
    principal: Principal,
    raw: VideoRequestInput | (() => Promise<VideoRequestInput>),
    signal?: AbortSignal,
    request: StreamRequestOptions = {},
  ): Promise<StreamedVideo> {
    const max = this.options.maxConcurrent ?? Infinity;
    if (this.live >= max) throw new LiveVideoLimitError(max);
    this.live++;
    let released = false;
    const release = () => {
      if (!released) this.live--;
      released = true;
    };
    try {
      return await this.start(principal, typeof raw === 'function' ? await raw() : raw, signal, request, release);
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Called with each stream's timeline once its first fragment has left (diagnostics, the benchmark). */
  watchTimelines(listener: (video: string, stages: readonly StageMark[]) => void): () => void {
    this.timelineListeners.add(listener);
    return () => this.timelineListeners.delete(listener);
  }

  private async start(
    principal: Principal,
    raw: VideoRequestInput,
    signal: AbortSignal | undefined,
    request: StreamRequestOptions,
    release: () => void,
  ): Promise<StreamedVideo> {
    const clock = this.options.clock;
    const timeline = clock ? new StageTimeline(clock, request.receivedAt) : undefined;
    timeline?.mark('body parsed');
    // The encoder starts while the face and the speech are checked (its start, a process spawn,
    // then costs the first fragment nothing); a refused request closes it unused.
    let encoder: OpenedMediaEncoder | undefined;
    let accepted: AcceptedVideo;
    try {
      accepted = await this.create.check(
        principal,
        raw,
        signal,
        timeline,
        (request) => {
          encoder = this.render.openEncoder(request.size, this.shutdown.signal, timeline);
        },
        (speech) => {
          encoder?.preload?.(speech.audio);
          this.render.analyseSpeech(speech);
        },
      );
    } catch (err) {
      encoder?.close();
      throw err;
    }
    // The render starts while the job is stored (its first frame and the encoder's start are what
    // the first fragment waits for, not the database); the response waits for the row, so the
    // id it carries can be fetched. A store that fails is the caller's error, and the render stops
    // at its first progress write as for a deleted job (RenderVideoJob's `stored`).
    const stored = this.create.store(accepted, timeline);
    // The render never waits for the reader (a slow or gone client must not hold the stored video
    // back); what the reader has not taken is buffered, at most the video itself (a few MB).
    const channel = new AsyncChannel<Uint8Array>();
    const firstMoof = new TopLevelBoxWatcher('moof');
    const onFragment = (fragment: Uint8Array) => {
      if (firstMoof.push(fragment) && timeline) {
        timeline.mark('first fragment out');
        this.logger.info({ video: accepted.job.id, stages: timeline.summary() }, 'live video: first fragment');
        for (const listener of this.timelineListeners) listener(accepted.job.id, timeline.entries());
      }
      channel.push(fragment);
    };
    const done = this.render
      .run(accepted.job, this.shutdown.signal, {
        prepared: accepted.prepared,
        speech: accepted.speech,
        onFragment,
        timeline,
        stored,
        ...(encoder ? { encoder } : {}),
      })
      .then(
        (job) => (job.status === 'completed' ? channel.end() : channel.fail(new Error(job.error ?? `video ${job.status}`))),
        (err: unknown) => {
          if (!(err instanceof RenderInterruptedError))
            this.logger.error({ video: accepted.job.id, err: String(err) }, 'live render failed');
          channel.fail(err);
        },
      );
    this.running.add(done);
    void done.finally(() => {
      this.running.delete(done);
      release();
    });
    await stored;
    return { job: accepted.job, fragments: channel };
  }

  /** Stops every live render (their jobs stay in_progress and are re-run on the next start). */
  async stop(): Promise<void> {
    this.shutdown.abort(new Error('service stopping'));
    await Promise.allSettled([...this.running]);
  }
}
