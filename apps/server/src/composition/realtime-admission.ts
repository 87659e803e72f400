import {
  CapacityAwareSessionRegistry,
  FloodCooldownSessionRegistry,
  InMemorySessionRegistry,
  REALTIME_TOKENS,
  RealtimeAdmission,
  SHARED_TOKENS,
  type RealtimeSessionRegistry,
} from '@svc/core';
import { RedisSessionRegistry } from '@svc/adapters-storage';
import { SERVER_TOKENS } from '../tokens.js';
import { defaultCpuBudget, ServerLoadMonitor } from '../runtime/server-load-monitor.js';
import type { Settings } from '../config.js';
import type { ModuleContext, Provide } from './module.js';

/**
 * (Helper of realtime.ts) Who may open a realtime session, for every transport: the load monitor
 * the capacity reads, the registry (this process's counts, or the shared Redis; capacity and
 * fairness across keys before it; the flood cooldown before all), and the RealtimeAdmission use
 * case the WebSocket gateway and WebRTC calls share. Construction only: the monitor's sampling
 * and the revocation watch start in `startRealtimeAdmission`.
 */
export function bindRealtimeAdmission(provide: Provide, s: Settings): void {
  provide(
    SERVER_TOKENS.ServerLoadMonitor,
    async (get) => {
      const recognizer = await get(REALTIME_TOKENS.SpeechRecognizer);
      return new ServerLoadMonitor({
        budgetCores: s.SVC_REALTIME_CPU_BUDGET ?? defaultCpuBudget(),
        sessionCores: s.SVC_REALTIME_SESSION_CPU,
        avatarCores: s.SVC_REALTIME_AVATAR_CPU,
        recognizer: () => recognizer?.load ?? null,
      });
    },
    { close: (monitor) => monitor.stop() },
  );
  provide(
    REALTIME_TOKENS.SessionRegistry,
    async (get) => {
      const caps = { maxSessions: s.SVC_REALTIME_MAX_SESSIONS, maxSessionsPerKey: s.SVC_REALTIME_MAX_SESSIONS_PER_KEY };
      const { client } = await get(SERVER_TOKENS.SharedRedis);
      let registry: RealtimeSessionRegistry;
      if (!client) registry = new InMemorySessionRegistry(caps);
      else {
        const logger = (await get(SHARED_TOKENS.Logger)).child({ module: 'realtime' });
        const options = { ...caps, leaseMs: s.SVC_REALTIME_LEASE_MS, keyPrefix: `${s.SVC_REDIS_KEY_PREFIX}rt:` };
        registry = new RedisSessionRegistry(client, options, logger);
      }
      // What this process can serve comes first (with its last slots kept for keys holding none); the caps (shared through Redis when set) after it.
      if (s.SVC_REALTIME_CAPACITY !== 'off') {
        registry = new CapacityAwareSessionRegistry(registry, await get(SERVER_TOKENS.ServerLoadMonitor), {
          fixedSessions: s.SVC_REALTIME_CAPACITY === 'auto' ? null : Number(s.SVC_REALTIME_CAPACITY),
          maxRecognizerBacklogMs: s.SVC_REALTIME_MAX_RECOGNIZER_BACKLOG_MS,
          maxEventLoopLagMs: s.SVC_REALTIME_MAX_EVENT_LOOP_LAG_MS,
        });
      }
      // Before all of them: a key whose last session flooded waits (per process, like the budget it broke).
      return new FloodCooldownSessionRegistry(registry, await get(SHARED_TOKENS.Clock), s.SVC_REALTIME_FLOOD_COOLDOWN_SEC * 1000);
    },
    { close: (r: RealtimeSessionRegistry) => r.close() },
  );
  provide(REALTIME_TOKENS.Admission, async (get) => {
    const keys = await get(SERVER_TOKENS.ManageApiKeys);
    return new RealtimeAdmission({
      registry: await get(REALTIME_TOKENS.SessionRegistry),
      isKeyActive: (apiKeyId) => keys.isActive(apiKeyId),
      clock: await get(SHARED_TOKENS.Clock),
      logger: (await get(SHARED_TOKENS.Logger)).child({ module: 'realtime' }),
    });
  });
}

/** Starts what admission runs on its own: the load monitor's sampling and the revocation watch. Returns their stop. */
export function startRealtimeAdmission({ get }: ModuleContext): () => Promise<void> {
  const monitor = get(SERVER_TOKENS.ServerLoadMonitor);
  monitor.start();
  const revocations = get(REALTIME_TOKENS.Admission).watchRevocations();
  return async () => {
    monitor.stop();
    await revocations?.stop();
  };
}

/** Sessions this process can serve now (the capacity gauge): the capacity admission's, or the count cap without it. */
export function currentCapacity(registry: RealtimeSessionRegistry, maxSessions: number): () => number {
  const admission = registry instanceof FloodCooldownSessionRegistry ? registry.inner : registry;
  return () => (admission instanceof CapacityAwareSessionRegistry ? admission.capacity() : maxSessions);
}
