import { z } from 'zod';
import { isAbsolute, join, resolve } from 'node:path';
import { parseEnvSettings } from './env-settings.js';
import { SERVER_MODULES } from './composition/modules.js';
import type { ServerModule } from './composition/module.js';

type SettingsOf<M> = M extends ServerModule<infer S> ? z.output<z.ZodObject<S>> : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every SVC_* setting of every module, parsed and typed (e.g. `settings.SVC_REALTIME_MAX_SESSIONS`). */
export type Settings = UnionToIntersection<SettingsOf<(typeof SERVER_MODULES)[number]>>;

/** One schema: the settings every module declares (README.md and the capability docs list them). */
function settingsSchema() {
  const shape: z.ZodRawShape = {};
  for (const m of SERVER_MODULES) {
    for (const key of Object.keys(m.settings)) {
      if (key in shape) throw new Error(`Setting ${key} is declared by two modules (${m.name} and another).`);
    }
    Object.assign(shape, m.settings);
  }
  return z.object(shape);
}

/** Names of every setting (docs tests check each is documented). */
export const CONFIG_KEYS: readonly string[] = SERVER_MODULES.flatMap((m) => Object.keys(m.settings));

/**
 * The configuration every module receives. A setting is read one way, by its name:
 * `config.settings.SVC_PORT` (the name the docs' settings tables use, so a reader finds every use
 * of a setting with one search). Values that depend on others are filled in by loadConfig:
 * SVC_DATA_DIR is absolute, SVC_DATABASE_URL defaults to the SQLite file in it.
 */
export interface ServerConfig {
  /** Every SVC_* setting, validated, with its default applied. */
  settings: Settings;
}

/**
 * Parses and validates ALL configuration, once, before anything opens: an invalid value throws
 * `Invalid configuration SVC_NAME: ...`, so the server never starts half-configured. `modules`: the
 * modules this process builds, whose checks across settings run (a CLI that builds only some runs
 * only theirs: `npm run keys` mints the key that SVC_SIP_API_KEY_ID must name while SVC_SIP_PORT is
 * already set in the environment).
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  modules: readonly ServerModule[] = SERVER_MODULES,
): ServerConfig {
  const c = parseEnvSettings(settingsSchema(), env) as Settings;
  for (const m of modules) (m.check as ((s: Settings) => void) | undefined)?.(c);
  const dataDir = isAbsolute(c.SVC_DATA_DIR) ? c.SVC_DATA_DIR : resolve(process.cwd(), c.SVC_DATA_DIR);
  return { settings: { ...c, SVC_DATA_DIR: dataDir, SVC_DATABASE_URL: c.SVC_DATABASE_URL || `sqlite:${join(dataDir, 'svc.sqlite')}` } };
}
