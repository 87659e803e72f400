import type { LanguageDetector } from '@svc/core';
import { francAll } from 'franc';
import { ISO639_3_TO_1 } from './iso639.js';

export interface FrancLanguageDetectorOptions {
  /** Fewer letters than this and the text is too short to tell: null. Default 10. */
  minLetters?: number;
  /**
   * The default language wins when its score is at least this fraction of the best one (franc
   * scores the winner 1). Trigram statistics on one short sentence are noisy: "Please call me back
   * when you get home tonight." scores Haitian Creole 1.0 and English 0.94. Default 0.9.
   */
  preferredMargin?: number;
  /** ISO 639-3 code of the preferred language. Default 'eng'. */
  preferred?: string;
}

const CANDIDATES = Object.keys(ISO639_3_TO_1);

/**
 * LanguageDetector over franc (trigram statistics, MIT). Answers a lower-case ISO 639-1 code
 * among the languages espeak-ng can speak, or null when the text is short or franc is unsure
 * ('und').
 */
export class FrancLanguageDetector implements LanguageDetector {
  private readonly minLetters: number;
  private readonly preferredMargin: number;
  private readonly preferred: string;

  constructor(options: FrancLanguageDetectorOptions = {}) {
    this.minLetters = options.minLetters ?? 10;
    this.preferredMargin = options.preferredMargin ?? 0.9;
    this.preferred = options.preferred ?? 'eng';
  }

  detect(text: string): string | null {
    const letters = text.match(/\p{L}/gu)?.length ?? 0;
    if (letters < this.minLetters) return null;
    const scores = francAll(text, { only: CANDIDATES, minLength: this.minLetters });
    const preferred = scores.find(([code]) => code === this.preferred);
    const code = preferred && preferred[1] >= this.preferredMargin ? this.preferred : scores[0]![0];
    return ISO639_3_TO_1[code] ?? null;
  }
}
