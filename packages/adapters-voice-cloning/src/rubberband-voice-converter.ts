import type { BaseVoiceCandidate, SpeakerFeatures, StreamingVoiceConversion, VoiceConverter, VoiceProfile } from '@svc/core';
import { chooseClosestBase } from './base-voice-choice.js';
import { planConversion, type ConversionPlan } from './conversion-plan.js';
import { designFir, StreamingFir } from './fir-equalizer.js';
import { floatToInt16, int16ToFloat } from './dsp/signal.js';
import { loadRubberband, type RubberbandApi } from './rubberband-module.js';
import { RubberbandShifter } from './rubberband-shifter.js';

/** Work is done in slices this long, yielding to the event loop in between (other requests keep moving). */
const SLICE_SECONDS = 0.25;
/**
 * How much input each call converts before returning: 0.25 s on the first call, then 4x more on
 * each following one (1 s, 4 s, 16 s ...); the rest is held for the next call or flush(). Streamed
 * speech starts after a quarter second's conversion instead of a whole first sentence's worth, and
 * because the budget grows faster than conversion time, every later chunk arrives while the client
 * still has audio to play (a call converts 4x the previous input, and conversion runs far faster
 * than real time: docs/benchmarks.md, Voices and cloning).
 */
const FIRST_BUDGET_SECONDS = 0.25;
const BUDGET_GROWTH = 4;

/**
 * Signal-processing voice conversion: Rubber Band pitch shift with formant scaling (vocal-tract
 * length), then a linear-phase equaliser that moves the long-term spectral envelope toward the
 * reference. Duration is preserved (the speaking rate is applied by synthesis), and it runs
 * chunk by chunk with state carried across chunks, so streamed speech keeps streaming.
 */
export class RubberbandVoiceConverter implements VoiceConverter {
  private api: RubberbandApi | null = null;
  private loading: Promise<RubberbandApi> | null = null;

  private constructor() {}

  /**
   * Loads the WASM engine and runs one short conversion, so the first real request does not pay the
   * warm-up; with `warm: false` nothing loads until warmUp() or the first conversion (its memory is
   * held only once cloning is used; docs/deployment.md, Memory and warm-up).
   */
  static async create(options: { warm?: boolean } = {}): Promise<RubberbandVoiceConverter> {
    const converter = new RubberbandVoiceConverter();
    if (options.warm !== false) await converter.warmUp();
    return converter;
  }

  /** Loads the engine (once) and resolves when it has converted its first tone. */
  warmUp(): Promise<RubberbandApi> {
    this.loading ??= (async () => {
      const api = await loadRubberband();
      const warmUp = new RubberbandConversion(
        api,
        { pitchScale: 1.2, formantScale: 1.1, equalizer: { frequenciesHz: [1000], gainsDb: [0] } },
        24000,
      );
      const tone = new Int16Array(24000).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 150 * i) / 24000)));
      await warmUp.process(tone);
      await warmUp.flush();
      this.api = api;
      return api;
    })().catch((err: unknown) => {
      this.loading = null;
      throw err;
    });
    return this.loading;
  }

  chooseBase(target: SpeakerFeatures, candidates: readonly BaseVoiceCandidate[]): BaseVoiceCandidate {
    return chooseClosestBase(target, candidates);
  }

  start(profile: VoiceProfile, sampleRate: number): StreamingVoiceConversion {
    const plan = planConversion(profile);
    if (this.api) return new RubberbandConversion(this.api, plan, sampleRate);
    // Not loaded yet: the conversion begins once the engine is (its first chunk waits for the load).
    let conversion: Promise<RubberbandConversion> | null = null;
    const ready = () => (conversion ??= this.warmUp().then((api) => new RubberbandConversion(api, plan, sampleRate)));
    return {
      process: async (chunk) => (await ready()).process(chunk),
      flush: async () => (await ready()).flush(),
    };
  }
}

class RubberbandConversion implements StreamingVoiceConversion {
  private readonly shifter: RubberbandShifter | null;
  private readonly equalizer: StreamingFir;
  private readonly sliceSamples: number;
  private readonly firstBudget: number;
  private calls = 0;
  /** Input received but not converted yet (beyond the budget of earlier calls). */
  private held = new Float32Array(0);

  constructor(api: RubberbandApi, plan: ConversionPlan, sampleRate: number) {
    const neutral = Math.abs(plan.pitchScale - 1) < 0.005 && Math.abs(plan.formantScale - 1) < 0.005;
    this.shifter = neutral ? null : new RubberbandShifter(api, sampleRate, plan.pitchScale, plan.formantScale);
    this.equalizer = new StreamingFir(designFir(plan.equalizer, sampleRate));
    this.sliceSamples = Math.round(sampleRate * SLICE_SECONDS);
    this.firstBudget = Math.round(sampleRate * FIRST_BUDGET_SECONDS);
  }

  async process(chunk: Int16Array): Promise<Int16Array> {
    const pending = concat([this.held, int16ToFloat(chunk)]);
    const budget = this.firstBudget * BUDGET_GROWTH ** this.calls++;
    // Within 1.5x of the budget, take it all rather than leave a sliver for later.
    const take = pending.length <= 1.5 * budget ? pending.length : budget;
    this.held = pending.slice(take);
    return floatToInt16(await this.convert(pending.subarray(0, take)));
  }

  async flush(): Promise<Int16Array> {
    const held = await this.convert(this.held);
    this.held = new Float32Array(0);
    const tail = this.shifter ? this.shifter.flush() : new Float32Array(0);
    return floatToInt16(concat([held, this.equalizer.process(tail), this.equalizer.flush()]));
  }

  private async convert(x: Float32Array): Promise<Float32Array> {
    const parts: Float32Array[] = [];
    for (let offset = 0; offset < x.length; offset += this.sliceSamples) {
      if (offset > 0) await yieldToEventLoop();
      const slice = x.subarray(offset, offset + this.sliceSamples);
      const shifted = this.shifter ? this.shifter.process(slice) : slice;
      parts.push(this.equalizer.process(shifted));
    }
    return concat(parts);
  }
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function concat(parts: Float32Array[]): Float32Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
