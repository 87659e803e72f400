import { unixSeconds } from '../shared/clock.js';
import { InvalidVideoModelError, InvalidVideoSizeError } from './errors.js';

export const VIDEO_MODEL = 'svc-avatar';
export const VIDEO_SIZES = ['640x640', '640x480', '480x640'] as const;
export type VideoSize = (typeof VIDEO_SIZES)[number];
/** Square: it suits a head-and-shoulders crop from a photo of any aspect ratio. */
export const DEFAULT_VIDEO_SIZE: VideoSize = '640x640';
export const MAX_DRIVING_AUDIO_SECONDS = 60;

export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

/** A video job as stored. Times are milliseconds since the epoch (the API shows Unix seconds). */
export interface VideoJob {
  id: string;
  apiKeyId: string;
  model: typeof VIDEO_MODEL;
  status: VideoStatus;
  progress: number;
  size: VideoSize;
  /** Length of the driving speech, which is the length of the video. */
  durationSeconds: number;
  createdAt: number;
  completedAt: number | null;
  /** When the retention sweep removes the video (null: kept until deleted). */
  expiresAt: number | null;
  error: string | null;
  /** Renders started (a restart during a render makes this grow; the budget bounds it). */
  attempts: number;
}

/**
 * The job's state machine: queued -> in_progress -> completed | failed, queued -> failed (e.g. a
 * restart finds the input gone) and in_progress -> in_progress (a restart or another worker re-runs
 * an interrupted render: a new attempt). A job that has started never goes back to queued, and
 * its progress only moves forward (a re-render reports the old value until it passes it); it is
 * 100 exactly when completed. Every transition returns a new record; an illegal one is a
 * programming error.
 */
const NEXT: Record<VideoStatus, VideoStatus[]> = {
  queued: ['in_progress', 'failed'],
  in_progress: ['completed', 'failed', 'in_progress'],
  completed: [],
  failed: [],
};

export function transition(job: VideoJob, to: VideoStatus, change: { progress?: number; error?: string; at?: number } = {}): VideoJob {
  if (!NEXT[job.status].includes(to)) throw new Error(`Illegal video transition ${job.status} -> ${to} for ${job.id}`);
  if (to === 'failed' && !change.error) throw new Error('A failed video needs an error message.');
  return {
    ...job,
    status: to,
    progress: to === 'completed' ? 100 : Math.max(job.progress, change.progress ?? job.progress),
    error: to === 'failed' ? change.error! : null,
    completedAt: to === 'completed' || to === 'failed' ? (change.at ?? job.completedAt) : null,
    attempts: to === 'in_progress' ? job.attempts + 1 : job.attempts,
  };
}

/** Progress of a running job: never backwards, and 100 only by completing. */
export function reportProgress(job: VideoJob, progress: number): VideoJob {
  if (job.status !== 'in_progress') throw new Error(`Progress on a ${job.status} video ${job.id}`);
  const clamped = Math.min(99, Math.max(job.progress, Math.floor(progress)));
  return clamped === job.progress ? job : { ...job, progress: clamped };
}

export function isFinished(job: VideoJob): boolean {
  return job.status === 'completed' || job.status === 'failed';
}

export function parseVideoSize(size: string | undefined | null): VideoSize {
  if (size === undefined || size === null) return DEFAULT_VIDEO_SIZE;
  if (!(VIDEO_SIZES as readonly string[]).includes(size)) throw new InvalidVideoSizeError(size, VIDEO_SIZES);
  return size as VideoSize;
}

export function parseVideoModel(model: string | undefined | null): typeof VIDEO_MODEL {
  if (model === undefined || model === null) return VIDEO_MODEL;
  if (model !== VIDEO_MODEL) throw new InvalidVideoModelError(model, VIDEO_MODEL);
  return VIDEO_MODEL;
}

export function videoDimensions(size: VideoSize): { width: number; height: number } {
  const [width, height] = size.split('x').map(Number) as [number, number];
  return { width, height };
}

/**
 * The REST shape of a job (the spec's Video plus the fields of the API it is modelled on). Every
 * field is always present; `error`, `completed_at` and `expires_at` are null when they do not apply.
 */
export function toVideoResource(job: VideoJob) {
  return {
    id: job.id,
    object: 'video' as const,
    model: job.model,
    status: job.status,
    progress: job.progress,
    size: job.size,
    seconds: String(Math.round(job.durationSeconds * 100) / 100),
    created_at: unixSeconds(job.createdAt),
    completed_at: job.completedAt === null ? null : unixSeconds(job.completedAt),
    expires_at: job.expiresAt === null ? null : unixSeconds(job.expiresAt),
    error: job.status === 'failed' ? job.error : null,
  };
}
