/**
 * Waits for `work` at most `ms`: true when it settled in time (fulfilled or rejected), false when
 * the time ran out first. The work is not cancelled; the caller decides what to do with it (drop
 * a connection that does not answer). The timer never keeps the process alive.
 */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    timer.unref();
    void work.then(
      () => (clearTimeout(timer), resolve(true)),
      () => (clearTimeout(timer), resolve(true)),
    );
  });
}
