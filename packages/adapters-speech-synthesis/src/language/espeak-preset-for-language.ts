import type { PresetVoice } from '@svc/core';
import { ESPEAK_ENGINE } from '../espeak/espeak-voices.js';

/** Codes whose espeak voice goes by another tag. */
const ALIASES: Readonly<Record<string, string>> = Object.freeze({
  nn: 'nb',
  no: 'nb',
  iw: 'he',
  in: 'id',
  'zh-cn': 'cmn',
  'zh-tw': 'cmn',
  'zh-hk': 'yue',
  sh: 'hr',
  mo: 'ro',
});

/**
 * The espeak preset that best speaks `language` (ISO 639-1 or a BCP-47 tag, any case): the exact
 * tag, then an alias, then the primary subtag, then any espeak preset of that primary language.
 * `presets` are the espeak synthesizer's voices() (other engines' presets are ignored).
 */
export function espeakPresetForLanguage(language: string, presets: readonly PresetVoice[]): PresetVoice | undefined {
  const espeak = presets.filter((p) => p.engine === ESPEAK_ENGINE);
  const byTag = new Map(espeak.map((p) => [p.language, p]));
  const tag = language.toLowerCase().replace(/_/g, '-');
  const primary = tag.split('-')[0]!;
  for (const candidate of [tag, ALIASES[tag], primary, ALIASES[primary]]) {
    const found = candidate ? byTag.get(candidate) : undefined;
    if (found) return found;
  }
  return espeak.find((p) => p.language.split('-')[0] === primary);
}
