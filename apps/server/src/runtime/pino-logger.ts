import { pino } from 'pino';
import type { Logger } from '@svc/core';

/** Structured JSON logs on stdout (pino); the core only sees its Logger port. */
export function createPinoLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'svc' },
    redact: { paths: ['req.headers.authorization', 'authorization', 'secret', 'apiKey'], censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  }) as unknown as Logger;
}
