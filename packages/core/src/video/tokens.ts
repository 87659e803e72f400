export const VIDEO_TOKENS = {
  AvatarRenderer: Symbol.for('svc.AvatarRenderer'),
  MediaEncoder: Symbol.for('svc.MediaEncoder'),
  VideoJobRepository: Symbol.for('svc.VideoJobRepository'),
  JobQueue: Symbol.for('svc.JobQueue'),
} as const;
