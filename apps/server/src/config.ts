import { z } from 'zod';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnvSettings } from './env-settings.js';
import { ALL_MODULES } from './composition/modules.js';
import type { ServerModule } from './composition/module.js';

type SettingsOf<M> = M extends ServerModule<infer S> ? z.output<z.ZodObject<S>> : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every SVC_* setting of every module, parsed and typed (e.g. `settings.SVC_REALTIME_MAX_SESSIONS`). */
export type Settings = UnionToIntersection<SettingsOf<(typeof ALL_MODULES)[number]>>;

/** One schema: the settings every module declares (README.md and the capability docs list them). */
function settingsSchema() {
  const shape: z.ZodRawShape = {};
  for (const m of ALL_MODULES) {
    for (const key of Object.keys(m.settings)) {
      if (key in shape) throw new Error(`Setting ${key} is declared by two modules (${m.name} and another).`);
    }
    Object.assign(shape, m.settings);
  }
  return z.object(shape);
}

/** Names of every setting (docs tests check each is documented). */
export const CONFIG_KEYS: readonly string[] = ALL_MODULES.flatMap((m) => Object.keys(m.settings));

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  logLevel: Settings['SVC_LOG_LEVEL'];
  tls: { cert: string; key: string } | null;
  apiKeys: string[];
  bootstrapKey: boolean;
  rateLimit: { perMinute: number; burst: number };
  maxJsonBodyBytes: number;
  metricsPublic: boolean;
  shutdownGraceMs: number;
  /** Every SVC_* setting, validated, with its default applied: capability modules read theirs here. */
  settings: Settings;
}

/**
 * Parses and validates ALL configuration, once, before anything opens: an invalid value throws
 * `Invalid configuration SVC_NAME: ...`, so the server never starts half-configured.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const c = parseEnvSettings(settingsSchema(), env) as Settings;
  for (const m of ALL_MODULES) (m.check as ((s: Settings) => void) | undefined)?.(c);
  const dataDir = isAbsolute(c.SVC_DATA_DIR) ? c.SVC_DATA_DIR : resolve(process.cwd(), c.SVC_DATA_DIR);
  return {
    port: c.SVC_PORT,
    host: c.SVC_HOST,
    dataDir,
    databaseUrl: c.SVC_DATABASE_URL || `sqlite:${join(dataDir, 'svc.sqlite')}`,
    logLevel: c.SVC_LOG_LEVEL,
    tls: c.SVC_TLS_CERT ? { cert: c.SVC_TLS_CERT, key: c.SVC_TLS_KEY } : null,
    apiKeys: c.SVC_API_KEYS,
    bootstrapKey: c.SVC_BOOTSTRAP_KEY,
    rateLimit: { perMinute: c.SVC_RATE_LIMIT_PER_MINUTE, burst: c.SVC_RATE_LIMIT_BURST },
    maxJsonBodyBytes: c.SVC_MAX_JSON_BODY_BYTES,
    metricsPublic: c.SVC_METRICS_PUBLIC,
    shutdownGraceMs: c.SVC_SHUTDOWN_GRACE_MS,
    settings: c,
  };
}
