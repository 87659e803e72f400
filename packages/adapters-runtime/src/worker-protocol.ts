/**
 * Messages between a WorkerPool and its worker threads. Kept in one file so both sides agree.
 *
 * main -> worker: a job (`id`, the engine-specific `request`, and a shared cancel flag the worker
 *                 may poll to stop early).
 * worker -> main: `ready` once its engine is loaded (with optional info such as a voice list),
 *                 then one `result` or `error` per job, in order.
 */
export interface JobMessage<Req> {
  id: number;
  request: Req;
  /** Int32Array over a SharedArrayBuffer; element 0 becomes 1 when the job is cancelled. */
  cancel: Int32Array;
}

export type WorkerMessage<Res> =
  | { type: 'ready'; info?: unknown }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; value: Res }
  | { type: 'error'; id: number; message: string };

export function isCancelled(flag: Int32Array): boolean {
  return Atomics.load(flag, 0) !== 0;
}
