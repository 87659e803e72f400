import { z } from 'zod';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnvSettings } from './env-settings.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def);
const list = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

/**
 * Every setting, read from SVC_* environment variables. The table in README.md lists them with the
 * same defaults; keep the two together.
 */
const schema = z.object({
  SVC_PORT: int(8080, 0, 65535),
  SVC_HOST: z.string().default('127.0.0.1'),
  SVC_DATA_DIR: z.string().default('./data'),
  SVC_DATABASE_URL: z.string().default(''),
  SVC_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SVC_TLS_CERT: z.string().default(''),
  SVC_TLS_KEY: z.string().default(''),
  SVC_API_KEYS: list.default([]),
  SVC_BOOTSTRAP_KEY: bool.default(true),
  SVC_TTS_ENGINES: list.default(['flite', 'espeak']),
  SVC_FLITE_WORKERS: int(2, 1, 32),
  SVC_RATE_LIMIT_PER_MINUTE: int(600),
  SVC_RATE_LIMIT_BURST: int(100),
  SVC_MAX_JSON_BODY_BYTES: int(11 * 1024 * 1024, 1024),
  SVC_METRICS_PUBLIC: bool.default(false),
  SVC_SHUTDOWN_GRACE_MS: int(10_000),
});

export type RawConfig = z.output<typeof schema>;

/** Names of the settings read here (the README's configuration table lists each). */
export const CONFIG_KEYS = Object.keys(schema.shape);

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  logLevel: RawConfig['SVC_LOG_LEVEL'];
  tls: { cert: string; key: string } | null;
  apiKeys: string[];
  bootstrapKey: boolean;
  ttsEngines: string[];
  fliteWorkers: number;
  rateLimit: { perMinute: number; burst: number };
  maxJsonBodyBytes: number;
  metricsPublic: boolean;
  shutdownGraceMs: number;
  /** The raw environment, for capability modules that read their own SVC_* settings. */
  env: Record<string, string | undefined>;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const c = parseEnvSettings(schema, env);
  if (Boolean(c.SVC_TLS_CERT) !== Boolean(c.SVC_TLS_KEY)) {
    throw new Error('Invalid configuration: SVC_TLS_CERT and SVC_TLS_KEY must be set together.');
  }
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
    ttsEngines: c.SVC_TTS_ENGINES,
    fliteWorkers: c.SVC_FLITE_WORKERS,
    rateLimit: { perMinute: c.SVC_RATE_LIMIT_PER_MINUTE, burst: c.SVC_RATE_LIMIT_BURST },
    maxJsonBodyBytes: c.SVC_MAX_JSON_BODY_BYTES,
    metricsPublic: c.SVC_METRICS_PUBLIC,
    shutdownGraceMs: c.SVC_SHUTDOWN_GRACE_MS,
    env,
  };
}
