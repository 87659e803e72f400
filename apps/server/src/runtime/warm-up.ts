import type { Logger } from '@svc/core';
import { servesApi, type ProcessConfig } from './process-role.js';

/**
 * When a capability's engines load (its SVC_*_WARM_UP setting; docs/deployment.md, "Memory"):
 * - `lazy`: on the first request that needs them (that request waits for the load; nothing is held before);
 * - `background`: right after start, without delaying it (a request arriving meanwhile waits for the same load);
 * - `blocking`: before the server listens (an engine that cannot load stops the start).
 */
export const WARM_UP_POLICIES = ['lazy', 'background', 'blocking'] as const;
export type WarmUpPolicy = (typeof WARM_UP_POLICIES)[number];

/**
 * The policy that applies on this process: a worker (SVC_ROLE=worker) renders queued videos and
 * nothing else, so every other capability's engines stay unloaded there, whatever the setting says.
 */
export function warmUpOnThisProcess(config: ProcessConfig, policy: WarmUpPolicy, options: { rendersVideo?: boolean } = {}): WarmUpPolicy {
  return servesApi(config) || options.rendersVideo ? policy : 'lazy';
}

/**
 * Loads one engine as `policy` says: awaits `load` (blocking), starts it and logs a failure
 * (background: the first request then tries again), or leaves it to the first request (lazy).
 */
export async function warmUp(policy: WarmUpPolicy, what: string, load: () => Promise<unknown>, logger: Logger): Promise<void> {
  if (policy === 'lazy') return;
  if (policy === 'blocking') {
    await load();
    return;
  }
  load().catch((err: unknown) => logger.warn({ err: String(err) }, `${what}: loading at start failed; the first request tries again`));
}
