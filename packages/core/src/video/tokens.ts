import { token } from '../shared/token.js';
import type { AvatarRenderer, JobQueue, MediaEncoder, VideoJobRepository } from './ports.js';

/** Injection tokens of the video capability, each typed with its port. */
export const VIDEO_TOKENS = {
  AvatarRenderer: token<AvatarRenderer>('svc.AvatarRenderer'),
  MediaEncoder: token<MediaEncoder>('svc.MediaEncoder'),
  VideoJobRepository: token<VideoJobRepository>('svc.VideoJobRepository'),
  JobQueue: token<JobQueue>('svc.JobQueue'),
} as const;
