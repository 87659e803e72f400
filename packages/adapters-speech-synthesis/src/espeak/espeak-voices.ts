import type { PresetVoice } from '@svc/core';
import type { EspeakWorkerInfo } from './espeak-job.js';

export const ESPEAK_ENGINE = 'espeak';
export const ESPEAK_PRESET_PREFIX = 'espeak-';

export const espeakPresetName = (language: string): string => `${ESPEAK_PRESET_PREFIX}${language.toLowerCase()}`;

/**
 * One preset per language tag espeak-ng knows (`espeak-fr`, `espeak-en-us`, `espeak-pt-br`...),
 * each bound to the voice espeak itself ranks best for that tag (lowest priority number; on a tie
 * the voice named after the tag, then the first listed). Tags are lower-cased BCP-47-like codes
 * as espeak lists them; a few are espeak's own (e.g. `en-gb-x-rp`).
 */
export function espeakPresets(voices: EspeakWorkerInfo['voices']): PresetVoice[] {
  const best = new Map<string, { voice: EspeakWorkerInfo['voices'][number]; priority: number; exact: boolean }>();
  for (const voice of voices) {
    const own = voice.identifier.split('/').pop()!.toLowerCase();
    for (const { name, priority } of voice.languages) {
      const tag = name.toLowerCase();
      const exact = own === tag;
      const current = best.get(tag);
      if (!current || priority < current.priority || (priority === current.priority && exact && !current.exact)) {
        best.set(tag, { voice, priority, exact });
      }
    }
  }
  return [...best.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tag, { voice }]) => ({
      name: espeakPresetName(tag),
      engine: ESPEAK_ENGINE,
      engineVoice: voice.identifier,
      language: tag,
      gender: 'male' as const,
      description: `${voice.name} (eSpeak NG formant synthesis, robotic but covers the language).`,
    }));
}
