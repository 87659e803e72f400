/**
 * The error a cancelled operation rejects with: the signal's own reason when it is an Error (what
 * `controller.abort()` sets: a DOMException named AbortError), so callers can tell a cancellation
 * from a failure by `err.name === 'AbortError'` exactly as with fetch.
 */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('The operation was aborted.', 'AbortError');
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}
