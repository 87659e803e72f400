// Worker thread running flite.wasm (WASI): one fresh instance per call (flite's main() is not meant
// to be re-entered), the compiled module reused for the life of the thread. Threads keep flite's
// CPU work off the main event loop and let calls run in parallel; see wasi-crash-workaround.ts for
// the node:wasi crash every thread must avoid.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { threadId, workerData } from 'node:worker_threads';
import { hostWorker, silenceWasiExperimentalWarning } from '../worker-host.js';
import { toOutputAudio } from '../output-audio.js';
import { SpeexResampler } from '../speex-resampler.js';
import { readWav } from '../wav-reader.js';
import { disableFastApiCallsForWasi } from './wasi-crash-workaround.js';
import { wasmApi, type WasmModule } from './wasm-api.js';
import { parseSegmentDurations, type FliteJobRequest, type FliteJobResult } from './flite-job.js';

export interface FliteWorkerData {
  wasmPath: string;
  /** A directory the pool owns and deletes on close; each thread works in its own subdirectory. */
  workRoot: string;
}

interface FliteState {
  module: WasmModule;
  resampler: SpeexResampler;
  WASI: typeof import('node:wasi').WASI;
  dir: string;
}

disableFastApiCallsForWasi();
silenceWasiExperimentalWarning();

void hostWorker<FliteJobRequest, FliteJobResult, FliteState>(
  async () => {
    const data = workerData as FliteWorkerData;
    const { WASI } = await import('node:wasi');
    const [module, resampler] = await Promise.all([wasmApi.compile(readFileSync(data.wasmPath)), SpeexResampler.create()]);
    const dir = join(data.workRoot, `t${threadId}`);
    mkdirSync(dir, { recursive: true });
    return { state: { module, resampler, WASI, dir } };
  },
  (state, request) => {
    const result = runFlite(state, request);
    return { value: result, transfer: [result.samples.buffer as ArrayBuffer] };
  },
);

function runFlite(state: FliteState, request: FliteJobRequest): FliteJobResult {
  const stdoutPath = join(state.dir, 'stdout.txt');
  const stderrPath = join(state.dir, 'stderr.txt');
  const wavPath = join(state.dir, 'out.wav');
  const stdout = openSync(stdoutPath, 'w');
  const stderr = openSync(stderrPath, 'w');
  try {
    const wasi = new state.WASI({
      version: 'preview1',
      // -psdur prints every segment with its end time: real phone timings for word alignment.
      args: ['flite', '-voice', request.voice, ...request.args, '-psdur', '-t', request.text, '-o', '/w/out.wav'],
      preopens: { '/w': state.dir },
      stdout,
      stderr,
      returnOnExit: true,
    });
    const instance = new wasmApi.Instance(state.module, wasi.getImportObject());
    const code = wasi.start(instance);
    if (code !== 0) throw new Error(`flite exited with code ${code}: ${readFileSync(stderrPath, 'utf8').slice(0, 500)}`);
  } finally {
    closeSync(stdout);
    closeSync(stderr);
  }
  try {
    const wav = readWav(readFileSync(wavPath));
    const segments = parseSegmentDurations(readFileSync(stdoutPath, 'utf8'));
    return { samples: toOutputAudio(wav.samples, wav.sampleRate, request.output, state.resampler), segments };
  } finally {
    for (const p of [stdoutPath, stderrPath, wavPath]) rmSync(p, { force: true });
  }
}
