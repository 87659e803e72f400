import { z } from 'zod';
import { WARM_UP_POLICIES, type WarmUpPolicy } from './runtime/warm-up.js';

/**
 * The value types of SVC_* settings, defined once: every capability module declares its settings
 * with these, and config.ts parses all of them together, once, before anything opens.
 */
export const setting = {
  /** An integer within [min, max], `def` when unset. */
  int: (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def),
  /**
   * An optional integer within [min, max] (undefined when unset or empty). Empty is unset because
   * `Number('')` is 0, and 0 is a port number: `SVC_SIP_PORT=` in an environment file opened a SIP
   * port on any free port instead of none.
   */
  optionalInt: (min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(min).max(max).optional()),
  /** A decimal number within [min, max], `def` when unset. */
  decimal: (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().min(min).max(max).default(def),
  /** An optional decimal number within [min, max] (undefined when unset or empty). */
  optionalDecimal: (min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().min(min).max(max).optional()),
  /** A comma-separated list (blank entries dropped), `def` when unset. */
  list: (def: readonly string[] = []) =>
    z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .default([...def]),
  /** true/false, 1/0, yes/no (an empty value is false). */
  bool: (def: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
      .transform((v) => v === 'true' || v === '1' || v === 'yes')
      .default(def),
  string: (def = '') => z.string().default(def),
  /** When a capability's engines load: lazy, background or blocking (runtime/warm-up.ts). */
  warmUp: (def: WarmUpPolicy) => z.enum(WARM_UP_POLICIES).default(def),
  /**
   * An optional URL ('' when unset) with one of `schemes`, checked at start rather than at first use
   * (a typo in SVC_REDIS_URL should stop the start, not the first rate-limited request). `hint` ends
   * the message: `must be <hint>`.
   */
  url: (schemes: readonly string[], hint: string) =>
    z
      .string()
      .default('')
      .refine((value) => value === '' || hasScheme(value, schemes), { error: `must be ${hint}` }),
} as const;

/**
 * True when `value` parses as a URL with one of `schemes`. Network URLs (http, redis) must name a host;
 * sqlite: names a file and postgres: may name a Unix socket in its query instead of a host.
 */
function hasScheme(value: string, schemes: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  const scheme = url.protocol.slice(0, -1);
  if (!schemes.includes(scheme)) return false;
  return scheme === 'sqlite' || scheme.startsWith('postgres') ? url.href.length > url.protocol.length : url.hostname !== '';
}

/**
 * Reads SVC_* settings from the environment with a zod schema; the first invalid value stops the
 * start with a message naming it.
 */
export function parseEnvSettings<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('SVC_'))));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid configuration ${String(issue.path[0] ?? '')}: ${issue.message}`);
  }
  return parsed.data;
}
