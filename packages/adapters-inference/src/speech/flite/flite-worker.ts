// Worker thread running flite.wasm (WASI): one fresh instance per call (flite's main() is not meant
// to be re-entered), the compiled module reused for the life of the thread. Threads keep flite's
// CPU work off the main event loop and let calls run in parallel; see wasi-crash-workaround.ts for
// the node:wasi crash every thread must avoid.
//
// Instantiating is the dearest part of a short call: the module's data segments (its five voices)
// fill 16 MB of fresh memory, about twice the CPU of synthesizing a clause. So each thread keeps the
// NEXT instance ready: made while the thread is idle (after loading, and after each call), bound to
// the call's WASI object only when the call comes (its imports forward to whichever WASI is current).
// A call then pays only for flite itself; the price is one instance (16 MB) held per idle thread.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { threadId, workerData } from 'node:worker_threads';
import { hostWorker, silenceWasiExperimentalWarning } from '../worker-host.js';
import { toOutputAudio } from '../output-audio.js';
import { SpeexResampler } from '../speex-resampler.js';
import { readWav } from '../wav-reader.js';
import { disableFastApiCallsForWasi } from './wasi-crash-workaround.js';
import { wasmApi, type WasmInstance, type WasmModule } from './wasm-api.js';
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
  /** WASI imports that forward to `current`, the WASI object of the call in progress. */
  imports: WasiImports;
  current: WasiImports | null;
  /** The instance the next call runs in, made ahead of it. */
  spare: WasmInstance | null;
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
    const state: FliteState = { module, resampler, WASI, dir, imports: { wasi_snapshot_preview1: {} as WasiCalls }, current: null, spare: null };
    state.imports = forwardingImports(state);
    state.spare = new wasmApi.Instance(module, state.imports);
    return { state };
  },
  (state, request) => {
    const result = runFlite(state, request);
    // The next instance is made once this result has been posted (setImmediate runs after it).
    setImmediate(() => (state.spare ??= new wasmApi.Instance(state.module, state.imports)));
    return { value: result, transfer: [result.samples.buffer as ArrayBuffer] };
  },
);

type WasiCalls = { fd_close(fd: number): number } & Record<string, (...args: unknown[]) => unknown>;
type WasiImports = { wasi_snapshot_preview1: WasiCalls };

/** One forwarding function per WASI function the module imports (it imports nothing else). */
function forwardingImports(state: FliteState): WasiImports {
  const calls: Record<string, (...args: unknown[]) => unknown> = {};
  for (const { module, name } of wasmApi.Module.imports(state.module)) {
    if (module !== 'wasi_snapshot_preview1') throw new Error(`flite.wasm imports ${module}.${name}, which WASI does not provide`);
    calls[name] = (...args) => state.current!.wasi_snapshot_preview1[name]!(...args);
  }
  return { wasi_snapshot_preview1: calls as WasiCalls };
}

/**
 * node:wasi (uvwasi) opens a real descriptor for every preopened directory and for each file the
 * program opens, and never closes them: neither when the WASI object is collected nor when the
 * thread ends. Unclosed, each flite call left one descriptor on its work directory open for the
 * life of the process (EMFILE after the limit). So, once flite has returned, close every WASI
 * descriptor above stdio (3 is the preopen, then anything flite left open) through WASI itself,
 * which closes the real one. Stdio (0-2) are ours and closed by the caller.
 */
function closeWasiDescriptors(imports: WasiImports): void {
  const EBADF = 8;
  let misses = 0;
  for (let fd = 3; fd < 64 && misses < 8; fd++) {
    try {
      misses = imports.wasi_snapshot_preview1.fd_close(fd) === EBADF ? misses + 1 : 0;
    } catch {
      misses++;
    }
  }
}

function runFlite(state: FliteState, request: FliteJobRequest): FliteJobResult {
  const stdoutPath = join(state.dir, 'stdout.txt');
  const stderrPath = join(state.dir, 'stderr.txt');
  const wavPath = join(state.dir, 'out.wav');
  const stdout = openSync(stdoutPath, 'w');
  const stderr = openSync(stderrPath, 'w');
  let wasiImports: WasiImports | null = null;
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
    wasiImports = wasi.getImportObject() as WasiImports;
    const instance = state.spare ?? new wasmApi.Instance(state.module, state.imports);
    state.spare = null;
    state.current = wasiImports;
    const code = wasi.start(instance);
    if (code !== 0) throw new Error(`flite exited with code ${code}: ${readFileSync(stderrPath, 'utf8').slice(0, 500)}`);
  } finally {
    state.current = null;
    if (wasiImports) closeWasiDescriptors(wasiImports);
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
