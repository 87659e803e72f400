/**
 * Polls `condition` until it holds, then returns; throws naming `what` after `timeoutMs`. For
 * waiting on a state the server reaches asynchronously (decoders handed back, a log line written)
 * instead of a fixed sleep, which is too short on a loaded machine and wasted time on an idle one.
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
