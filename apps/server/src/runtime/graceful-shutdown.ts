import type { Logger } from '@svc/core';

/** Exit code when the process could not stop cleanly: a second signal, a failure while stopping, or a stop still running at the end of the grace period. */
export const UNCLEAN_EXIT_CODE = 1;

/**
 * SIGTERM and SIGINT stop the process gracefully: `stop` runs once (the server stops accepting,
 * tells realtime sessions, lets requests finish, returns jobs to the queue, closes what it opened,
 * giving up on whatever does not answer by the end of `graceMs`) and the process exits 0, within
 * `graceMs` whatever is down. If stopping is still running when `graceMs` is over (the event loop
 * was blocked), or a second signal arrives, or stopping fails, it exits UNCLEAN_EXIT_CODE at once.
 */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger, graceMs: number): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while shutting down: exiting now');
      process.exit(UNCLEAN_EXIT_CODE);
    }
    stopping = true;
    const started = Date.now();
    logger.info({ signal, graceMs }, 'shutting down');
    setTimeout(() => {
      logger.error({ afterMs: Date.now() - started }, 'shutdown did not finish in time: exiting');
      process.exit(UNCLEAN_EXIT_CODE);
    }, graceMs).unref();
    stop().then(
      () => {
        logger.info({ tookMs: Date.now() - started }, 'stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err: err instanceof Error ? err.stack : String(err) }, 'shutdown failed');
        process.exit(UNCLEAN_EXIT_CODE);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
