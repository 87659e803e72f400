/**
 * Declares tests of one `describe` whose bodies run at once: each `scenario(title, run)` is an `it`
 * that fails with what `run` threw, and the block's `before` starts the runs together, at most
 * `limit` at a time (in the order declared). For scenarios that wait mostly in real time (a reply
 * played at the listener's pace, a microphone looping its clip) and share no state: the block then
 * takes about its longest scenarios, not their sum. Call it inside the `describe`; a test picked
 * alone (mocha -g) still starts the block's others.
 */
export function atOnce(limit = Number.POSITIVE_INFINITY): (title: string, run: () => Promise<unknown>) => void {
  const runs = new Map<string, () => Promise<unknown>>();
  const started = new Map<string, Promise<unknown>>();
  let active = 0;
  const queued: (() => void)[] = [];
  const slot = async (): Promise<void> => {
    while (active >= limit) await new Promise<void>((resolve) => queued.push(resolve));
    active++;
  };
  const release = (): void => {
    active--;
    queued.shift()?.();
  };
  const start = (title: string): Promise<unknown> => {
    let running = started.get(title);
    if (!running) {
      running = awaitedLater(
        (async () => {
          await slot();
          try {
            return await runs.get(title)!();
          } finally {
            release();
          }
        })(),
      );
      started.set(title, running);
    }
    return running;
  };
  before(() => {
    for (const title of runs.keys()) void start(title);
  });
  return (title, run) => {
    runs.set(title, run);
    it(title, async () => {
      await start(title);
    });
  };
}

/** `promise`, whose rejection is left to whoever awaits it later (not an unhandled rejection meanwhile). */
export function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
