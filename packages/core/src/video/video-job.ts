import { InvalidParameterError } from '../shared/errors.js';

export const VIDEO_MODEL = 'svc-avatar';
export const VIDEO_SIZES = ['640x640', '640x480', '480x640'] as const;
export type VideoSize = (typeof VIDEO_SIZES)[number];
export const DEFAULT_VIDEO_SIZE: VideoSize = '640x640';
export const MAX_DRIVING_AUDIO_SECONDS = 60;

export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

/** The Video record of the API (`created_at` in Unix seconds, as the spec says). */
export interface VideoJob {
  id: string;
  apiKeyId: string;
  model: typeof VIDEO_MODEL;
  status: VideoStatus;
  progress: number;
  size: VideoSize;
  createdAt: number;
  error: string | null;
}

/**
 * The job's state machine: queued -> in_progress -> completed | failed, and queued -> failed
 * (e.g. a restart finds the input gone). Progress only moves forward and is 100 exactly when
 * completed. Every transition returns a new record; an illegal one is a programming error.
 */
const NEXT: Record<VideoStatus, VideoStatus[]> = {
  queued: ['in_progress', 'failed'],
  in_progress: ['completed', 'failed', 'queued'],
  completed: [],
  failed: [],
};

export function transition(job: VideoJob, to: VideoStatus, change: { progress?: number; error?: string } = {}): VideoJob {
  if (!NEXT[job.status].includes(to)) throw new Error(`Illegal video transition ${job.status} -> ${to} for ${job.id}`);
  if (to === 'failed' && !change.error) throw new Error('A failed video needs an error message.');
  return {
    ...job,
    status: to,
    progress: to === 'completed' ? 100 : to === 'queued' ? 0 : Math.max(job.progress, change.progress ?? job.progress),
    error: to === 'failed' ? change.error! : null,
  };
}

export function reportProgress(job: VideoJob, progress: number): VideoJob {
  if (job.status !== 'in_progress') throw new Error(`Progress on a ${job.status} video ${job.id}`);
  const clamped = Math.min(99, Math.max(job.progress, Math.floor(progress)));
  return clamped === job.progress ? job : { ...job, progress: clamped };
}

export function parseVideoSize(size: string | undefined): VideoSize {
  if (size === undefined) return DEFAULT_VIDEO_SIZE;
  if (!(VIDEO_SIZES as readonly string[]).includes(size)) {
    throw new InvalidParameterError(`'size' must be one of ${VIDEO_SIZES.join(', ')}.`, 'size');
  }
  return size as VideoSize;
}

export function videoDimensions(size: VideoSize): { width: number; height: number } {
  const [width, height] = size.split('x').map(Number) as [number, number];
  return { width, height };
}

/** The REST shape of a job. */
export function toVideoResource(job: VideoJob) {
  return {
    id: job.id,
    object: 'video' as const,
    model: job.model,
    status: job.status,
    progress: job.progress,
    size: job.size,
    created_at: job.createdAt,
    ...(job.status === 'failed' ? { error: job.error } : {}),
  };
}
