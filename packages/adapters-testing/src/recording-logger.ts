import type { Logger } from '@svc/core';

export interface LogEntry {
  level: string;
  obj: Record<string, unknown>;
  msg?: string;
}

/** A logger that keeps every entry (the real one is pino; the levels and fields are what matter). */
export function recordingLogger(entries: LogEntry[]): Logger {
  const make = (bindings: Record<string, unknown>): Logger => ({
    debug: (obj, msg) => void entries.push({ level: 'debug', obj: { ...bindings, ...obj }, msg }),
    info: (obj, msg) => void entries.push({ level: 'info', obj: { ...bindings, ...obj }, msg }),
    warn: (obj, msg) => void entries.push({ level: 'warn', obj: { ...bindings, ...obj }, msg }),
    error: (obj, msg) => void entries.push({ level: 'error', obj: { ...bindings, ...obj }, msg }),
    child: (more) => make({ ...bindings, ...more }),
  });
  return make({});
}
