import type { Clock } from './clock.js';

export interface RecurringTaskOptions {
  /** For the failure report, e.g. `video retention sweep`. */
  name: string;
  /** Wait before the first run (0: right away, on the next timer tick). */
  firstMs: number;
  /** Wait between the end of one run and the start of the next. */
  everyMs: number;
  /** A run that throws is reported here; the task keeps its schedule. */
  onError(error: unknown, name: string): void;
}

/** A task started by `repeatEvery`. */
export interface RecurringTask {
  /** No run starts after this; resolves when a run in progress has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `run` on the injected clock, again `everyMs` after each run ends (runs never overlap, so a
 * slow sweep is not started twice). The one way the server's housekeeping repeats: the video
 * retention and orphaned-blob sweeps, the video queue's repair scan, the client-secret purge.
 * The timers are the clock's, so a test moves them with a fake clock.
 */
export function repeatEvery(clock: Clock, options: RecurringTaskOptions, run: () => Promise<unknown>): RecurringTask {
  let cancelTimer: (() => void) | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const schedule = (wait: number): void => {
    cancelTimer = clock.setTimer(wait, () => {
      cancelTimer = null;
      running = Promise.resolve()
        .then(run)
        .then(
          () => undefined,
          (error: unknown) => options.onError(error, options.name),
        )
        .finally(() => {
          running = null;
          if (!stopped) schedule(options.everyMs);
        });
    });
  };
  schedule(options.firstMs);
  return {
    async stop() {
      stopped = true;
      cancelTimer?.();
      cancelTimer = null;
      await running;
    },
  };
}
