/**
 * What one process of the service does (SVC_ROLE, docs/deployment.md):
 * - `both` (default, one machine): everything;
 * - `api`: REST and WebSocket; video jobs are enqueued for the workers, never rendered here
 *   (except a live `/v1/videos/stream`, which renders on the process that receives it);
 * - `worker`: renders queued video jobs; serves only /healthz, /readyz and /metrics.
 */
export type ProcessRole = 'api' | 'worker' | 'both';
export const PROCESS_ROLES = ['api', 'worker', 'both'] as const;

/** Structural (not ServerConfig) so the modules that declare the settings can use it. */
export type ProcessConfig = { settings: { SVC_ROLE: ProcessRole } };

export const servesApi = (config: ProcessConfig): boolean => config.settings.SVC_ROLE !== 'worker';
export const rendersJobs = (config: ProcessConfig): boolean => config.settings.SVC_ROLE !== 'api';

/** `redis` when chosen, or left to the default and a shared Redis is configured; else `memory`. */
export function jobQueueKind(settings: { SVC_JOB_QUEUE: string; SVC_REDIS_URL: string }): 'redis' | 'memory' {
  if (settings.SVC_JOB_QUEUE) return settings.SVC_JOB_QUEUE as 'redis' | 'memory';
  return settings.SVC_REDIS_URL ? 'redis' : 'memory';
}
