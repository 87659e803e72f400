/** Thrown (or recognized) when a response was cancelled. */
export class ResponseAborted extends Error {
  constructor() {
    super('The response was cancelled.');
    this.name = 'ResponseAborted';
  }
}

/**
 * Iterates `source` but stops at once when `signal` aborts, even if the source is stuck awaiting
 * the network: cancellation must not wait for the next upstream token.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new ResponseAborted());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    while (true) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    // Let the source release its resources (HTTP body, timers); never wait for it.
    Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => undefined);
  }
}

/** Resolves with `promise`, or rejects with ResponseAborted as soon as `signal` aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new ResponseAborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ResponseAborted());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
