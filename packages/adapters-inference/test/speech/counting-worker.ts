// A worker for the WorkerPool tests: "loads" (optionally failing, as its workerData says), reports
// its thread id as ready info, then answers each job with the number it was sent, doubled.
import { threadId, workerData } from 'node:worker_threads';
import { hostWorker } from '../../src/speech/worker-host.js';

const { failStart } = (workerData ?? {}) as { failStart?: boolean };

void hostWorker<number, { doubled: number; thread: number }, null>(
  async () => {
    if (failStart) throw new Error('no engine here');
    return { state: null, info: { thread: threadId } };
  },
  (_state, n) => ({ value: { doubled: n * 2, thread: threadId } }),
);
