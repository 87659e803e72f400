import type { z } from 'zod';

/**
 * Reads one capability's SVC_* settings from the environment with its zod schema; the first
 * invalid value stops the start with a message naming it.
 */
export function parseEnvSettings<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('SVC_'))));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid configuration ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
