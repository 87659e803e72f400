// Worker thread running flite.wasm (WASI). flite's main() is not meant to be re-entered, and the
// compiled module is reused for the life of the thread. Threads keep flite's CPU work off the main
// event loop and let calls run in parallel; see wasi-crash-workaround.ts for the node:wasi crash
// every thread must avoid.
//
// Instantiating was the dearest part of a call: the module's data segments (its five voices) fill
// 16 MB of fresh memory, which cost more CPU per instance than flite takes to speak a sentence
// (issue 17's profile: docs/realtime.md, "What a speaking session costs").
// So each thread keeps ONE instance and a copy of its memory as instantiated (taken just before
// flite first runs in it, so a server that never spoke does not hold it): after a call that memory is copied back and the rest zeroed (cheap beside a new instance), and the next call runs
// main() in memory exactly as a fresh instance has it. Everything flite keeps between calls lives in
// that memory (its globals, the C library's heap state and its "started" flag) except the stack
// pointer, a wasm global, which main() leaves where it found it when it returns. So the instance is
// reused only when main() returned (flite did not call proc_exit, which unwinds past it). Memory
// that grew during a call cannot shrink: the C library's allocator starts on the whole memory it
// finds (zeroed), so the size settles at what the largest call needed (the longest text piece) and
// is held while the thread idles; above MAX_REUSED_MEMORY a fresh instance replaces it.
// After a failed call, or one that called proc_exit, the next runs in a fresh instance. Imports
// are bound per call: they forward to the call's WASI object. Same audio as a fresh instance, byte for byte (tested).
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { threadId, workerData } from 'node:worker_threads';
import { hostWorker, silenceWasiExperimentalWarning } from '@svc/adapters-runtime/worker';
import { toOutputAudio } from '../output-audio.js';
import { readWav } from '@svc/adapters-runtime/worker';
import { disableFastApiCallsForWasi } from './wasi-crash-workaround.js';
import { wasmApi, type WasmInstance, type WasmModule } from './wasm-api.js';
import { parseSegmentDurations, type FliteJobRequest, type FliteJobResult } from './flite-job.js';

export interface FliteWorkerData {
  wasmPath: string;
  /** A directory the pool owns and deletes on close; each thread works in its own subdirectory. */
  workRoot: string;
}

/** A reused instance holds at most this much memory while idle: room for the longest text piece, with margin. */
const MAX_REUSED_MEMORY = 64 * 1024 * 1024;

interface FliteState {
  module: WasmModule;
  WASI: typeof import('node:wasi').WASI;
  dir: string;
  /** WASI imports that forward to `current`, the WASI object of the call in progress. */
  imports: WasiImports;
  current: WasiImports | null;
  /** The instance the next call runs in, ready (fresh, or its memory restored). */
  spare: WasmInstance | null;
  /** The instance the last call ran in, reusable once its memory is restored. */
  dirty: WasmInstance | null;
  /** The memory of an instance as instantiated, before flite ran in it. */
  pristine: Uint8Array | null;
  /** Instances flite has run in (a call in one of them reports itself as reused). */
  used: WeakSet<WasmInstance>;
  /** Set when the call in progress called proc_exit (main() did not return: the instance is not reused). */
  exited: boolean;
}

disableFastApiCallsForWasi();
silenceWasiExperimentalWarning();

void hostWorker<FliteJobRequest, FliteJobResult, FliteState>(
  async () => {
    const data = workerData as FliteWorkerData;
    const { WASI } = await import('node:wasi');
    const module = await wasmApi.compile(readFileSync(data.wasmPath));
    const dir = join(data.workRoot, `t${threadId}`);
    mkdirSync(dir, { recursive: true });
    const state: FliteState = {
      module,
      WASI,
      dir,
      imports: { wasi_snapshot_preview1: {} as WasiCalls },
      current: null,
      spare: null,
      dirty: null,
      pristine: null,
      used: new WeakSet(),
      exited: false,
    };
    state.imports = forwardingImports(state);
    state.spare = freshInstance(state);
    return { state };
  },
  (state, request) => {
    const { result, reusable } = runFlite(state, request);
    state.dirty = reusable;
    // The next instance is readied once this result has been posted (setImmediate runs after it);
    // a call that comes first (its message drained in the same turn) readies it itself.
    setImmediate(() => readySpare(state));
    return { value: result, transfer: [result.samples.buffer as ArrayBuffer] };
  },
);

function freshInstance(state: FliteState): WasmInstance {
  return new wasmApi.Instance(state.module, state.imports);
}

/**
 * Every instance starts from the same memory, so the first fresh one's copy serves them all. It is
 * taken when flite first runs in that instance (a short copy), not when the thread starts: the voices fill
 * 16.4 MB of it (4,172 of 4,192 pages are non-zero), which an idle server that never spoke would
 * otherwise hold twice per thread (a copy made at start showed in the idle footprint).
 */
function keepPristine(state: FliteState, instance: WasmInstance): void {
  if (!state.pristine && !state.used.has(instance)) state.pristine = new Uint8Array(instance.exports.memory.buffer).slice();
}

/** Makes the next call's instance, unless it is ready: the last one restored, or a fresh one. */
function readySpare(state: FliteState): WasmInstance {
  if (!state.spare) {
    state.spare = state.dirty && state.pristine ? restored(state, state.dirty) : freshInstance(state);
    state.dirty = null;
  }
  return state.spare;
}

/** The instance flite has just run in, its memory as instantiated again (and zeroed where it grew). */
function restored(state: FliteState, instance: WasmInstance): WasmInstance {
  const memory = new Uint8Array(instance.exports.memory.buffer);
  memory.set(state.pristine!);
  memory.fill(0, state.pristine!.length);
  return instance;
}

type WasiCalls = { fd_close(fd: number): number } & Record<string, (...args: unknown[]) => unknown>;
type WasiImports = { wasi_snapshot_preview1: WasiCalls };

/** One forwarding function per WASI function the module imports (it imports nothing else). */
function forwardingImports(state: FliteState): WasiImports {
  const calls: Record<string, (...args: unknown[]) => unknown> = {};
  for (const { module, name } of wasmApi.Module.imports(state.module)) {
    if (module !== 'wasi_snapshot_preview1') throw new Error(`flite.wasm imports ${module}.${name}, which WASI does not provide`);
    calls[name] =
      name === 'proc_exit'
        ? (...args) => {
            state.exited = true;
            return state.current!.wasi_snapshot_preview1[name]!(...args);
          }
        : (...args) => state.current!.wasi_snapshot_preview1[name]!(...args);
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

/** One flite call; `reusable`: the instance it ran in, when its memory can simply be restored for the next call. */
function runFlite(state: FliteState, request: FliteJobRequest): { result: FliteJobResult; reusable: WasmInstance | null } {
  const stdoutPath = join(state.dir, 'stdout.txt');
  const stderrPath = join(state.dir, 'stderr.txt');
  const wavPath = join(state.dir, 'out.wav');
  const stdout = openSync(stdoutPath, 'w');
  const stderr = openSync(stderrPath, 'w');
  let wasiImports: WasiImports | null = null;
  let reusable: WasmInstance | null = null;
  let reused = false;
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
    const instance = readySpare(state);
    state.spare = null;
    keepPristine(state, instance);
    reused = state.used.has(instance);
    state.used.add(instance);
    state.current = wasiImports;
    state.exited = false;
    const code = wasi.start(instance);
    if (code !== 0) throw new Error(`flite exited with code ${code}: ${readFileSync(stderrPath, 'utf8').slice(0, 500)}`);
    if (!state.exited && instance.exports.memory.buffer.byteLength <= MAX_REUSED_MEMORY) reusable = instance;
  } finally {
    state.current = null;
    if (wasiImports) closeWasiDescriptors(wasiImports);
    closeSync(stdout);
    closeSync(stderr);
  }
  try {
    const wav = readWav(readFileSync(wavPath));
    const segments = parseSegmentDurations(readFileSync(stdoutPath, 'utf8'));
    return {
      result: { samples: toOutputAudio(wav.samples, wav.sampleRate, request.output), segments, reusedInstance: reused },
      reusable,
    };
  } finally {
    for (const p of [stdoutPath, stderrPath, wavPath]) rmSync(p, { force: true });
  }
}
