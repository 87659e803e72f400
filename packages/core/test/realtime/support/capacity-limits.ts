import { DEFAULT_MAX_EVENT_LOOP_LAG_MS, DEFAULT_MAX_RECOGNIZER_BACKLOG_MS, type CapacityLimits } from '../../../src/index.js';

/** The capacity admission's default guards, with the CPU arithmetic on (no fixed count). */
export const limits: CapacityLimits = {
  fixedSessions: null,
  maxRecognizerBacklogMs: DEFAULT_MAX_RECOGNIZER_BACKLOG_MS,
  maxEventLoopLagMs: DEFAULT_MAX_EVENT_LOOP_LAG_MS,
};
