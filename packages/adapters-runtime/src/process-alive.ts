/**
 * Whether a process with this pid runs (this one included). A process of another user, whose
 * signals we may not send (EPERM), counts as running: what it left is not ours to clear.
 */
export function processRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
