import {
  CreateVideo,
  DeleteVideo,
  DrivingSpeechLoader,
  GetVideo,
  GetVideoContent,
  ListVideos,
  ReferenceImageLoader,
  RenderVideoJob,
  ResumeVideoJobs,
  repeatEvery,
  SHARED_TOKENS,
  SPEECH_TOKENS,
  StreamVideo,
  SweepExpiredVideos,
  SweepOrphanedBlobs,
  videoBlobOwner,
  VOICE_TOKENS,
  type BlobOwner,
  VIDEO_QUEUE,
  VIDEO_TOKENS,
  type JobQueue,
} from '@svc/core';
import { FfmpegVideoEncoder } from '@svc/adapters-media';
import { LandmarkAvatarRenderer } from '@svc/adapters-avatar';
import { BullMqJobQueue, InProcessJobQueue, TypeOrmVideoJobRepository } from '@svc/adapters-storage';
import { rateLimitMiddleware, videoRoutes } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { jobQueueKind, rendersJobs } from '../runtime/process-role.js';
import { warmUp, warmUpOnThisProcess } from '../runtime/warm-up.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule, type ModuleRoutes } from './module.js';

/** A base64 ref_image and a base64 input (or input_tts with an inline ref_audio), 10 MB each, plus the rest. */
const VIDEO_JSON_BODY_BYTES = 2 * 10 * 1024 * 1024 + 64 * 1024;
const HOUR_MS = 3_600_000;
/** With the shared queue: how often a worker looks for rows the queue lost (see ResumeVideoJobs). */
const REPAIR_SCAN_MS = 60_000;
/** The first orphan sweep waits a little: start-up is busy enough. */
const ORPHAN_SWEEP_FIRST_MS = 60_000;

export interface VideoUseCases {
  create: CreateVideo;
  stream: StreamVideo;
  get: GetVideo;
  content: GetVideoContent;
  list: ListVideos;
  remove: DeleteVideo;
  sweep: SweepExpiredVideos;
  /** The orphaned-blob sweep, on the processes that run it (render roles, SVC_BLOB_ORPHAN_GRACE_HOURS > 0). */
  orphans?: SweepOrphanedBlobs;
  /** What the queue's consumer runs (start()). */
  render: RenderVideoJob;
  /** Requeues unfinished jobs at start and, with a durable queue, in its repair scan. */
  resume: ResumeVideoJobs;
}

/**
 * Avatar video (documented in docs/video.md): job rows in the database, inputs and MP4s in the blob
 * store, renders through the JobQueue (in-process worker pool), live streams rendered at once.
 * At start the unfinished jobs of a previous run are resumed and the retention sweep is scheduled;
 * at shutdown running renders are aborted and awaited (their ffmpeg with them) and stay in_progress
 * for the next start.
 */
export const videoModule = defineModule({
  name: 'video',
  docs: 'docs/video.md',
  settings: {
    SVC_VIDEO_WORKERS: setting.int(1, 1, 64),
    SVC_VIDEO_RENDER_THREADS: setting.int(1, 0, 64),
    SVC_VIDEO_RETENTION_HOURS: setting.int(168, 0, 24 * 365 * 10),
    SVC_VIDEO_MAX_ATTEMPTS: setting.int(2, 1, 10),
    SVC_VIDEO_MAX_STREAMS: setting.int(2, 1, 64),
    // One queue serves every key in order: a key's burst must not hold the others' videos for hours (0: no limit).
    SVC_VIDEO_MAX_PENDING_PER_KEY: setting.int(10, 0, 100_000),
    SVC_VIDEO_FACE_CACHE: setting.int(16, 0, 1024),
    // The face detector and render threads (most of a video server's memory once loaded; docs/deployment.md,
    // Memory and warm-up): on the first video request by default.
    SVC_VIDEO_WARM_UP: setting.warmUp('lazy'),
  },
  bind(provide, config) {
    const s = config.settings;
    provide(VIDEO_TOKENS.VideoJobRepository, async (get) => new TypeOrmVideoJobRepository(await get(SERVER_TOKENS.DataSource)));
    provide(
      VIDEO_TOKENS.AvatarRenderer,
      async (get) => {
        const renderer = new LandmarkAvatarRenderer({
          renderThreads: s.SVC_VIDEO_RENDER_THREADS,
          faceCacheEntries: s.SVC_VIDEO_FACE_CACHE,
        });
        // WARM-UP (video): the detector and render threads, the WASM backend and the weights load
        // on the first photo (lazy), or at start (background / blocking: the cold first request's extra
        // time moves to start; docs/benchmarks.md, Avatar video).
        // Every role that prepares or renders faces needs them: the API (face check, live streams) and workers.
        const policy = warmUpOnThisProcess(config, s.SVC_VIDEO_WARM_UP, { rendersVideo: rendersJobs(config) });
        await warmUp(policy, 'avatar renderer', () => renderer.warmUp(), await get(SHARED_TOKENS.Logger));
        return renderer;
      },
      { close: (renderer) => renderer.close?.() },
    );
    // The driving audio reaches ffmpeg on a pipe: the encoder writes no file. After the first video,
    // one ffmpeg waits for the next (small, mostly shared pages), so a video forks nothing on its path.
    provide(VIDEO_TOKENS.MediaEncoder, () => new FfmpegVideoEncoder({ standby: true }), { close: (encoder) => encoder.close?.() });
    // One process: a worker pool in it. Several: BullMQ on the shared Redis (docs/deployment.md).
    provide(
      VIDEO_TOKENS.JobQueue,
      async (get): Promise<JobQueue> =>
        jobQueueKind(s) === 'redis'
          ? new BullMqJobQueue({
              url: s.SVC_REDIS_URL,
              prefix: `${s.SVC_REDIS_KEY_PREFIX}bull`,
              concurrency: s.SVC_VIDEO_WORKERS,
              lockMs: s.SVC_JOB_LOCK_MS,
              // One more than the render budget, so the row's own count decides when a job is given up.
              maxDeliveries: s.SVC_VIDEO_MAX_ATTEMPTS + 1,
              logger: await get(SHARED_TOKENS.Logger),
            })
          : new InProcessJobQueue(s.SVC_VIDEO_WORKERS, await get(SHARED_TOKENS.Logger)),
      { close: (queue) => queue.close?.() },
    );
    // Construction only: the queue is consumed, unfinished jobs resumed and the sweeps scheduled by start().
    provide(
      SERVER_TOKENS.VideoUseCases,
      async (get): Promise<VideoUseCases> => {
        const logger = (await get(SHARED_TOKENS.Logger)).child({ capability: 'video' });
        const jobs = await get(VIDEO_TOKENS.VideoJobRepository);
        const blobs = await get(SHARED_TOKENS.BlobStore);
        const renderer = await get(VIDEO_TOKENS.AvatarRenderer);
        const queue = await get(VIDEO_TOKENS.JobQueue);
        const clock = await get(SHARED_TOKENS.Clock);
        const fetcher = await get(SHARED_TOKENS.MediaFetcher);
        const create = new CreateVideo(
          new ReferenceImageLoader(fetcher),
          new DrivingSpeechLoader(fetcher, await get(SPEECH_TOKENS.AudioCodec), await get(SPEECH_TOKENS.SynthesizeSpeech)),
          renderer,
          jobs,
          blobs,
          queue,
          clock,
          await get(SHARED_TOKENS.IdGenerator),
          {
            retentionMs: s.SVC_VIDEO_RETENTION_HOURS === 0 ? null : s.SVC_VIDEO_RETENTION_HOURS * HOUR_MS,
            maxPendingPerKey: s.SVC_VIDEO_MAX_PENDING_PER_KEY,
          },
          logger,
        );
        const render = new RenderVideoJob(jobs, blobs, renderer, await get(VIDEO_TOKENS.MediaEncoder), clock, logger);
        const stream = new StreamVideo(create, render, logger, { maxConcurrent: s.SVC_VIDEO_MAX_STREAMS, clock });
        // The sweep of orphaned blobs (videos', and voices' when the repository can tell), where jobs render.
        let orphans: SweepOrphanedBlobs | undefined;
        if (rendersJobs(config) && s.SVC_BLOB_ORPHAN_GRACE_HOURS > 0) {
          const voices = await get(VOICE_TOKENS.VoiceRepository);
          const owners: BlobOwner[] = [videoBlobOwner(jobs)];
          if (voices.referencedAudioKeys) owners.push({ prefix: 'voices/', referenced: (keys) => voices.referencedAudioKeys!(keys) });
          orphans = new SweepOrphanedBlobs(blobs, owners, clock, s.SVC_BLOB_ORPHAN_GRACE_HOURS * HOUR_MS, logger);
        }
        return {
          create,
          stream,
          get: new GetVideo(jobs),
          content: new GetVideoContent(jobs, blobs),
          list: new ListVideos(jobs),
          remove: new DeleteVideo(jobs, blobs, logger),
          sweep: new SweepExpiredVideos(jobs, blobs, clock, logger),
          ...(orphans ? { orphans } : {}),
          render,
          resume: new ResumeVideoJobs(jobs, queue, clock, s.SVC_VIDEO_MAX_ATTEMPTS, logger),
        };
      },
      // Live streams are aborted and awaited (their ffmpeg with them).
      { close: (video) => video.stream.stop() },
    );
  },
  /**
   * On the processes that render: consume the queue, resume the unfinished jobs of a previous run,
   * then the sweeps (retention at start and hourly, orphaned blobs hourly after a minute) and, with a
   * durable queue, its repair scan. Stopped at shutdown: running renders are aborted and stay
   * in_progress for the next start.
   */
  async start({ config, get }) {
    if (!rendersJobs(config)) return;
    const video = get(SERVER_TOKENS.VideoUseCases);
    const queue = get(VIDEO_TOKENS.JobQueue);
    const clock = get(SHARED_TOKENS.Clock);
    const logger = get(SHARED_TOKENS.Logger).child({ capability: 'video' });
    const durable = Boolean(queue.holds);
    // A durable queue re-delivers the job of a worker that died: its row is reclaimed first.
    const stopConsuming = await queue.consume(VIDEO_QUEUE, async (id, signal) => {
      if (!durable || (await video.resume.reclaim(id))) await video.render.execute(id, signal);
    });
    await video.resume.execute();
    const onError = (err: unknown, what: string) => logger.warn({ err: String(err) }, `${what} failed`);
    const tasks = [
      ...(durable
        ? [
            repeatEvery(clock, { name: 'video queue repair scan', firstMs: REPAIR_SCAN_MS, everyMs: REPAIR_SCAN_MS, onError }, () =>
              video.resume.execute(),
            ),
          ]
        : []),
      repeatEvery(clock, { name: 'video retention sweep', firstMs: 0, everyMs: HOUR_MS, onError }, () => video.sweep.execute()),
      ...(video.orphans
        ? [
            repeatEvery(clock, { name: 'orphaned blob sweep', firstMs: ORPHAN_SWEEP_FIRST_MS, everyMs: HOUR_MS, onError }, () =>
              video.orphans!.execute(),
            ),
          ]
        : []),
    ];
    return async () => {
      await Promise.all([stopConsuming(), ...tasks.map((task) => task.stop())]);
    };
  },
  routes({ config, get }): ModuleRoutes {
    const video = get(SERVER_TOKENS.VideoUseCases);
    return {
      authenticated: [
        videoRoutes({
          ...video,
          jsonBodyLimit: Math.max(config.settings.SVC_MAX_JSON_BODY_BYTES, VIDEO_JSON_BODY_BYTES),
          rateLimit: rateLimitMiddleware(get(SHARED_TOKENS.RateLimiter), 'video'),
        }),
      ],
    };
  },
});
