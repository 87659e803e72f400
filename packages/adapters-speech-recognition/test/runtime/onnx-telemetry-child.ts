// A process for onnx-telemetry.test.ts: creates one onnxruntime session the way argv[2] says, then exits.
//   raw       onnxruntime-node alone, nothing of the service's (the control: telemetry as shipped)
//   detector  the Silero detector on the main thread
//   pool      a session inside a thread of the service's WorkerPool
import { InferenceSession } from 'onnxruntime-node';
import { WorkerPool } from '@svc/adapters-runtime';
import { SileroVoiceActivityDetector } from '../../src/index.js';
import { sileroModelPath } from '../../src/vad/silero-model.js';

const mode = process.argv[2];
if (mode === 'raw') await InferenceSession.create(sileroModelPath());
else if (mode === 'detector') await SileroVoiceActivityDetector.create();
else if (mode === 'pool') {
  const script = new URL('./onnx-session-worker.js', import.meta.url);
  const { pool } = await WorkerPool.start<null, null>({ name: 'onnx', script, size: 1, workerData: { modelPath: sileroModelPath() } });
  await pool.close();
} else throw new Error(`unknown mode ${mode}`);
process.exit(0);
