// A worker for onnx-telemetry.test.ts: creates one onnxruntime session (the model in workerData) as
// it loads, straight from onnxruntime-node, the way an engine's worker thread does.
import { workerData } from 'node:worker_threads';
import { InferenceSession } from 'onnxruntime-node';
import { hostWorker } from '@svc/adapters-runtime';

const { modelPath } = workerData as { modelPath: string };

void hostWorker<null, null, null>(
  async () => {
    await InferenceSession.create(modelPath);
    return { state: null, info: null };
  },
  async () => ({ value: null }),
);
