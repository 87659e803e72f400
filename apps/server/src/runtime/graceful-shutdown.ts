import type { Logger } from '@svc/core';

/** Time allowed beyond the HTTP grace period for workers, engines and connections to close. */
const CLOSE_MARGIN_MS = 30_000;

/**
 * SIGTERM and SIGINT stop the process gracefully: `stop` runs once (the server stops accepting,
 * tells realtime sessions, lets requests finish within `graceMs`, returns jobs to the queue) and
 * the process exits 0. If stopping takes longer than `graceMs` plus a margin, or a second signal
 * arrives, it exits 1 at once.
 */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger, graceMs: number): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while shutting down: exiting now');
      process.exit(1);
    }
    stopping = true;
    const started = Date.now();
    logger.info({ signal, graceMs }, 'shutting down');
    setTimeout(() => {
      logger.error({ afterMs: Date.now() - started }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, graceMs + CLOSE_MARGIN_MS).unref();
    stop().then(
      () => {
        logger.info({ tookMs: Date.now() - started }, 'stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err: err instanceof Error ? err.stack : String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
