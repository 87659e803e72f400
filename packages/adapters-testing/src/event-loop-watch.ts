/**
 * Time the main event loop was busy (not waiting for I/O) while `work` ran, from Node's event loop
 * utilization, plus the largest delay of a 5 ms timer. Busy time, unlike timer lag, does not grow
 * when other processes take the (shared, 2-core) CPU, so assertions on it hold on a loaded machine.
 */
export async function loopBusy<T>(work: () => Promise<T>): Promise<{ busyMs: number; lagMs: number; workMs: number; result: T }> {
  let lagMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lagMs = Math.max(lagMs, now - last - 5);
    last = now;
  }, 5);
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  try {
    const result = await work();
    return { busyMs: performance.eventLoopUtilization(elu).active, lagMs, workMs: performance.now() - started, result };
  } finally {
    clearInterval(timer);
  }
}
