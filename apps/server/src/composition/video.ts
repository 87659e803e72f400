import type { DataSource } from 'typeorm';
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
  type AudioCodec,
  type AvatarRenderer,
  type BlobStore,
  type Clock,
  type IdGenerator,
  type JobQueue,
  type Logger,
  type MediaEncoder,
  type MediaFetcher,
  type SynthesizeSpeech,
  type VideoJobRepository,
  type VoiceRepository,
} from '@svc/core';
import { FfmpegVideoEncoder, LandmarkAvatarRenderer } from '@svc/adapters-inference';
import { BullMqJobQueue, InProcessJobQueue, TypeOrmVideoJobRepository } from '@svc/adapters-storage';
import { rateLimitMiddleware, videoRoutes } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { scratchDirOf } from '../runtime/scratch-dir.js';
import { jobQueueKind, rendersJobs } from '../runtime/process-role.js';
import { warmUp, warmUpOnThisProcess } from '../runtime/warm-up.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule } from './module.js';

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
    SVC_VIDEO_FACE_CACHE: setting.int(16, 0, 1024),
    // The face detector and render threads (~200 MB once loaded): on the first video request by default.
    SVC_VIDEO_WARM_UP: setting.warmUp('lazy'),
  },
  bind(provide, config) {
    const s = config.settings;
    provide<VideoJobRepository>(VIDEO_TOKENS.VideoJobRepository, async (get) => new TypeOrmVideoJobRepository(await get<DataSource>(SERVER_TOKENS.DataSource)));
    provide<AvatarRenderer>(
      VIDEO_TOKENS.AvatarRenderer,
      async (get) => {
        const renderer = new LandmarkAvatarRenderer({ renderThreads: s.SVC_VIDEO_RENDER_THREADS, faceCacheEntries: s.SVC_VIDEO_FACE_CACHE });
        // WARM-UP (video): the detector and render threads, the WASM backend and the weights load
        // on the first photo (lazy), or at start (background / blocking; ~0.5-1 s on a quiet machine).
        // Every role that prepares or renders faces needs them: the API (face check, live streams) and workers.
        const policy = warmUpOnThisProcess(config, s.SVC_VIDEO_WARM_UP, { rendersVideo: rendersJobs(config) });
        await warmUp(policy, 'avatar renderer', () => renderer.warmUp(), await get<Logger>(SHARED_TOKENS.Logger));
        return renderer;
      },
      { close: (renderer) => (renderer as LandmarkAvatarRenderer).close?.() },
    );
    // The driving audio's short-lived WAV goes to this process's scratch space (cleared at start).
    provide<MediaEncoder>(VIDEO_TOKENS.MediaEncoder, () => new FfmpegVideoEncoder({ scratchDir: scratchDirOf(config.dataDir) }));
    // One process: a worker pool in it. Several: BullMQ on the shared Redis (docs/deployment.md).
    provide<JobQueue>(
      VIDEO_TOKENS.JobQueue,
      async (get) =>
        jobQueueKind(s) === 'redis'
          ? new BullMqJobQueue({
              url: s.SVC_REDIS_URL,
              prefix: `${s.SVC_REDIS_KEY_PREFIX}bull`,
              concurrency: s.SVC_VIDEO_WORKERS,
              lockMs: s.SVC_JOB_LOCK_MS,
              // One more than the render budget, so the row's own count decides when a job is given up.
              maxDeliveries: s.SVC_VIDEO_MAX_ATTEMPTS + 1,
              logger: await get<Logger>(SHARED_TOKENS.Logger),
            })
          : new InProcessJobQueue(s.SVC_VIDEO_WORKERS, await get<Logger>(SHARED_TOKENS.Logger)),
      { close: (queue) => (queue as { stop?: () => Promise<void> }).stop?.() },
    );
    provide(
      SERVER_TOKENS.VideoUseCases,
      async (get): Promise<VideoUseCases & { stopWorkers(): Promise<void> }> => {
        const logger = (await get<Logger>(SHARED_TOKENS.Logger)).child({ capability: 'video' });
        const jobs = await get<VideoJobRepository>(VIDEO_TOKENS.VideoJobRepository);
        const blobs = await get<BlobStore>(SHARED_TOKENS.BlobStore);
        const renderer = await get<AvatarRenderer>(VIDEO_TOKENS.AvatarRenderer);
        const queue = await get<JobQueue>(VIDEO_TOKENS.JobQueue);
        const clock = await get<Clock>(SHARED_TOKENS.Clock);
        const fetcher = await get<MediaFetcher>(SHARED_TOKENS.MediaFetcher);
        const create = new CreateVideo(
          new ReferenceImageLoader(fetcher),
          new DrivingSpeechLoader(fetcher, await get<AudioCodec>(SPEECH_TOKENS.AudioCodec), await get<SynthesizeSpeech>(SPEECH_TOKENS.SynthesizeSpeech)),
          renderer,
          jobs,
          blobs,
          queue,
          clock,
          await get<IdGenerator>(SHARED_TOKENS.IdGenerator),
          { retentionMs: s.SVC_VIDEO_RETENTION_HOURS === 0 ? null : s.SVC_VIDEO_RETENTION_HOURS * HOUR_MS },
          logger,
        );
        const render = new RenderVideoJob(jobs, blobs, renderer, await get<MediaEncoder>(VIDEO_TOKENS.MediaEncoder), clock, logger);
        const stream = new StreamVideo(create, render, logger, { maxConcurrent: s.SVC_VIDEO_MAX_STREAMS, clock });
        const sweep = new SweepExpiredVideos(jobs, blobs, clock, logger);
        const resume = new ResumeVideoJobs(jobs, queue, clock, s.SVC_VIDEO_MAX_ATTEMPTS, logger);
        const durable = Boolean(queue.holds);
        let stopConsuming = async () => {};
        let orphans: SweepOrphanedBlobs | undefined;
        const timers = new Map<string, () => void>();
        // Every timer here repeats and never keeps the process alive.
        const every = (firstMs: number, ms: number, job: () => Promise<unknown>, what: string) => {
          const schedule = (wait: number) => {
            timers.set(
              what,
              clock.setTimer(wait, () => {
                job().catch((err) => logger.warn({ err: String(err) }, `${what} failed`));
                schedule(ms);
              }),
            );
          };
          schedule(firstMs);
        };
        if (rendersJobs(config)) {
          // A durable queue re-delivers the job of a worker that died: its row is reclaimed first.
          stopConsuming = await queue.consume(VIDEO_QUEUE, async (id, signal) => {
            if (!durable || (await resume.reclaim(id))) await render.execute(id, signal);
          });
          await resume.execute();
          if (durable) every(REPAIR_SCAN_MS, REPAIR_SCAN_MS, () => resume.execute(), 'video queue repair scan');
          // The retention sweep runs at start and then hourly, on the processes that render.
          every(0, HOUR_MS, () => sweep.execute(), 'video retention sweep');
          // So does the sweep of orphaned blobs (videos', and voices' when the repository can tell).
          if (s.SVC_BLOB_ORPHAN_GRACE_HOURS > 0) {
            const voices = await get<VoiceRepository & { referencedAudioKeys?: (keys: readonly string[]) => Promise<Set<string>> }>(VOICE_TOKENS.VoiceRepository);
            const owners: BlobOwner[] = [videoBlobOwner(jobs)];
            if (voices.referencedAudioKeys) owners.push({ prefix: 'voices/', referenced: (keys) => voices.referencedAudioKeys!(keys) });
            const sweepOrphans = new SweepOrphanedBlobs(blobs, owners, clock, s.SVC_BLOB_ORPHAN_GRACE_HOURS * HOUR_MS, logger);
            every(ORPHAN_SWEEP_FIRST_MS, HOUR_MS, () => sweepOrphans.execute(), 'orphaned blob sweep');
            orphans = sweepOrphans;
          }
        }
        return {
          create,
          stream,
          get: new GetVideo(jobs),
          content: new GetVideoContent(jobs, blobs),
          list: new ListVideos(jobs),
          remove: new DeleteVideo(jobs, blobs, logger),
          sweep,
          ...(orphans ? { orphans } : {}),
          async stopWorkers() {
            for (const cancel of timers.values()) cancel();
            await Promise.all([stopConsuming(), stream.stop()]);
          },
        };
      },
      { close: (video) => video.stopWorkers() },
    );
  },
  routes({ config, get }) {
    const video = get<VideoUseCases>(SERVER_TOKENS.VideoUseCases);
    return {
      authenticated: [
        videoRoutes({
          ...video,
          jsonBodyLimit: Math.max(config.maxJsonBodyBytes, VIDEO_JSON_BODY_BYTES),
          rateLimit: rateLimitMiddleware(get(SHARED_TOKENS.RateLimiter), 'video'),
        }),
      ],
    };
  },
});
