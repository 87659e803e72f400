import { NEUTRAL_PROSODY } from '../speech/prosody.js';
import type { VoiceCatalog } from '../speech/voice-catalog.js';
import type { Logger } from '../shared/logger.js';
import { silentLogger } from '../shared/logger.js';
import type { VoiceAnalyzer } from './voice-analyzer.js';
import type { BaseVoiceCandidate } from './voice-profile.js';

/**
 * Calibration text: the opening of the Rainbow Passage, the classic phonetically balanced reading
 * used in voice science. Each base preset reads it once so it can be measured like a reference.
 */
export const CALIBRATION_TEXT =
  'When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. ' +
  'The rainbow is a division of white light into many beautiful colors. ' +
  'These take the shape of a long round arch, with its path high above, and its two ends apparently beyond the horizon.';

/** Presets cloned speech may start from, preferred first (Flite: the most intelligible engine here). */
export const DEFAULT_BASE_PRESETS = ['slt', 'rms', 'awb'] as const;

/**
 * The base presets measured the same way as reference speakers. Measuring costs one synthesis and
 * one analysis per preset, done once per process (lazily, or ahead with warm()).
 */
export class BaseVoiceLibrary {
  private measured: Promise<BaseVoiceCandidate[]> | null = null;

  constructor(
    private readonly catalog: VoiceCatalog,
    private readonly analyzer: VoiceAnalyzer,
    private readonly presets: readonly string[] = DEFAULT_BASE_PRESETS,
    private readonly logger: Logger = silentLogger,
    private readonly sampleRate = 24000,
  ) {}

  candidates(): Promise<BaseVoiceCandidate[]> {
    if (!this.measured) {
      this.measured = this.measureAll();
      // A failed calibration (engine not ready) is retried by the next caller.
      this.measured.catch(() => (this.measured = null));
    }
    return this.measured;
  }

  /** Measures now rather than on the first cloning request. */
  async warm(): Promise<void> {
    await this.candidates();
  }

  private async measureAll(): Promise<BaseVoiceCandidate[]> {
    const available = this.presets.filter((name) => this.catalog.get(name));
    // Without any of them (e.g. only espeak configured), clone from the English default voice.
    if (available.length === 0) available.push(this.catalog.defaultFor('en').name);
    const candidates: BaseVoiceCandidate[] = [];
    for (const preset of available) {
      const voice = this.catalog.get(preset)!;
      const speech = await this.catalog.engineFor(voice).synthesize({
        text: CALIBRATION_TEXT,
        voice,
        prosody: NEUTRAL_PROSODY,
        sampleRate: this.sampleRate,
        wordTimings: false,
      });
      const speaker = await this.analyzer.analyze({ samples: speech.samples, sampleRate: speech.sampleRate }, CALIBRATION_TEXT);
      this.logger.debug({ preset, f0: Math.round(speaker.f0MedianHz), formantScale: speaker.formantScale }, 'base voice measured');
      candidates.push({ preset, speaker });
    }
    return candidates;
  }
}
