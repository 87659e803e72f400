import { InvalidParameterError, type PresetVoice, type SpeechSynthesizer, type SynthesisRequest, type SynthesisResult } from '@svc/core';
import { throwIfAborted } from '@svc/adapters-runtime';
import { assertSampleRate } from '@svc/adapters-runtime';
import { WorkerPool } from '@svc/adapters-runtime';
import type { EspeakJobRequest, EspeakJobResult, EspeakWorkerInfo } from './espeak-job.js';
import { espeakProsody } from './espeak-prosody.js';
import { ESPEAK_ENGINE, espeakPresets } from './espeak-voices.js';
import { espeakWordTimings } from './espeak-word-timings.js';
import { escapeForSsml } from './ssml-escape.js';

export interface EspeakSpeechSynthesizerOptions {
  /**
   * Worker threads, each with one warm espeak-ng instance serving one call at a time. Default 1:
   * espeak renders far faster than real time, and each instance holds a lot of memory (docs/deployment.md,
   * Memory and warm-up).
   */
  poolSize?: number;
  /**
   * Keep the instance loaded after create() (default), or not: create() still loads one to read
   * the voice list (unless an earlier create() of this process read it), then stops it, and the
   * first request (or warmUp()) loads it again (its memory held only once espeak is used).
   */
  warm?: boolean;
}

/**
 * The voice list espeak-ng reported in this process (it is the one of the installed package, the
 * same for every instance): a process that starts several servers (the tests) loads espeak once for it.
 */
let voicesOfThisProcess: EspeakWorkerInfo['voices'] | undefined;

/**
 * eSpeak NG (GPL-3) compiled to WASM: ~100 languages with formant synthesis (robotic, but it speaks
 * almost any language). Calls queue for the warm instance(s) in worker threads; a cancelled call
 * stops espeak mid-sentence. Native rate 22050 Hz, resampled to the request's rate (and volume
 * applied) inside the worker.
 *
 * Word timings are real: espeak reports word events with audio positions (espeak-word-timings.ts).
 */
export class EspeakSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = ESPEAK_ENGINE;

  private constructor(
    private readonly pool: WorkerPool<EspeakJobRequest, EspeakJobResult>,
    private readonly presets: readonly PresetVoice[],
  ) {}

  static async create(options: EspeakSpeechSynthesizerOptions = {}): Promise<EspeakSpeechSynthesizer> {
    const poolOptions = { name: 'espeak-ng', script: new URL('./espeak-worker.js', import.meta.url), size: options.poolSize ?? 1 };
    // Unloaded: the voice list read by an earlier instance of this process serves, with no thread started for it.
    if (options.warm === false && voicesOfThisProcess) {
      return new EspeakSpeechSynthesizer(
        WorkerPool.create<EspeakJobRequest, EspeakJobResult>(poolOptions),
        espeakPresets(voicesOfThisProcess),
      );
    }
    const { pool, info } = await WorkerPool.start<EspeakJobRequest, EspeakJobResult>(poolOptions);
    voicesOfThisProcess = (info as EspeakWorkerInfo).voices;
    if (options.warm === false) await pool.release();
    return new EspeakSpeechSynthesizer(pool, espeakPresets(voicesOfThisProcess));
  }

  /** Loads the instance(s) now (if they are not running) and resolves once they are ready. */
  async warmUp(): Promise<void> {
    await this.pool.warm();
  }

  voices(): PresetVoice[] {
    return this.presets.map((p) => ({ ...p }));
  }

  async synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    throwIfAborted(signal);
    const sampleRate = request.sampleRate;
    assertSampleRate(sampleRate);
    const voice = request.voice.engineVoice;
    if (!this.presets.some((p) => p.engineVoice === voice)) {
      throw new InvalidParameterError(`espeak-ng has no voice '${voice}'.`, 'voice');
    }
    const text = request.text.trim();
    if (!text) return { samples: new Int16Array(0), sampleRate, words: [] };

    const escaped = escapeForSsml(text);
    const output = { sampleRate, volume: request.prosody.volume };
    const raw = await this.pool.run(
      { voice, text: escaped.text, ...espeakProsody(request.prosody), output },
      { signal, tenant: request.tenant },
    );
    throwIfAborted(signal);
    const words = request.wordTimings ? espeakWordTimings(text, escaped.origin, raw.events, raw.durationSeconds) : [];
    return { samples: raw.samples, sampleRate, words };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
