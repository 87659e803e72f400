// A worker for the WorkerPool tests: "loads" (optionally failing, as its workerData says), reports
// its thread id as ready info, then answers each job with the number it was sent, doubled (a
// negative one after -n ms).
import { threadId, workerData } from 'node:worker_threads';
import { hostWorker } from '../src/worker-host.js';

const { failStart } = (workerData ?? {}) as { failStart?: boolean };

void hostWorker<number, { doubled: number; thread: number }, null>(
  async () => {
    if (failStart) throw new Error('no engine here');
    return { state: null, info: { thread: threadId } };
  },
  // A negative number is a job that takes -n ms (an engine busy in a native call) before answering.
  async (_state, n) => {
    if (n < 0) await new Promise((resolve) => setTimeout(resolve, -n));
    return { value: { doubled: n * 2, thread: threadId } };
  },
);
