import { parentPort } from 'node:worker_threads';
import type { JobMessage, WorkerMessage } from './worker-protocol.js';

export interface JobOutput<Res> {
  value: Res;
  /** Buffers moved (not copied) to the main thread, e.g. the samples' ArrayBuffer. */
  transfer?: ArrayBuffer[];
}

/**
 * Worker-thread side of a WorkerPool: runs `init` once (loading the engine), reports ready, then
 * answers each job with `handle`. Jobs arrive one at a time (the pool never sends a second job
 * before the first is answered), so `handle` may be synchronous and keep engine state.
 */
export async function hostWorker<Req, Res, State>(
  init: () => Promise<{ state: State; info?: unknown }>,
  handle: (state: State, request: Req, cancel: Int32Array) => JobOutput<Res> | Promise<JobOutput<Res>>,
): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('hostWorker must run inside a worker thread.');
  const post = (message: WorkerMessage<Res>, transfer?: ArrayBuffer[]): void => port.postMessage(message, transfer);
  let state: State;
  try {
    const started = await init();
    state = started.state;
    post({ type: 'ready', info: started.info });
  } catch (err) {
    post({ type: 'init-error', message: err instanceof Error ? err.message : String(err) });
    return;
  }
  port.on('message', (job: JobMessage<Req>) => {
    void (async () => {
      try {
        const output = await handle(state, job.request, job.cancel);
        post({ type: 'result', id: job.id, value: output.value }, output.transfer);
      } catch (err) {
        post({ type: 'error', id: job.id, message: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
}

/**
 * Node prints "ExperimentalWarning: WASI is an experimental feature" on every worker that loads
 * node:wasi. This drops that one warning in this thread and prints any other warning as usual.
 */
export function silenceWasiExperimentalWarning(): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'ExperimentalWarning' && /WASI/.test(warning.message)) return;
    console.warn(`${warning.name}: ${warning.message}`);
  });
}
