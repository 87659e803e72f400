import type { LanguageDetector } from '@svc/core';
import { commonEnglishWords, wordsOf } from './common-english-words.js';
import { eldCompactScores } from './eld-compact-scores.js';
import { everydayWordLanguages } from './everyday-words.js';
import { languageByScript } from './language-by-script.js';

/** Per-language similarity of a text (higher is closer), as eld's getScores() answers. */
export type LanguageScores = (text: string) => Readonly<Record<string, number>>;

/**
 * Latin-script languages that both eld and espeak-ng know. Leaving out what espeak cannot speak
 * (Tagalog, Yoruba) keeps a short English sentence from being claimed by them.
 */
export const LATIN_LANGUAGES: readonly string[] = [
  'az',
  'ca',
  'cs',
  'da',
  'de',
  'en',
  'es',
  'et',
  'eu',
  'fi',
  'fr',
  'hr',
  'hu',
  'is',
  'it',
  'lt',
  'lv',
  'ms',
  'nl',
  'no',
  'pl',
  'pt',
  'ro',
  'sk',
  'sl',
  'sq',
  'sv',
  'tr',
  'vi',
];

/**
 * The common languages (after English) that keep a sentence from a close, rarer neighbour scoring a
 * little higher on a few words: "Dobranoc" is Polish, not Croatian; "God natt" Swedish, not
 * Norwegian; "Günaydın" Turkish, not Azerbaijani.
 */
const COMMON_LANGUAGES = new Set(['fr', 'de', 'es', 'it', 'pt', 'nl', 'pl', 'sv', 'tr']);

export interface ShortTextLanguageDetectorOptions {
  /**
   * The preferred language (English for Latin script, Russian for Cyrillic...) wins when its score
   * is at least this fraction of the best one: another language must be clearly closer, not just
   * ahead on a handful of letter sequences. Default 0.95.
   */
  preferredMargin?: number;
  /** A common language beats a rarer one that scores at most this much better. Default 0.9. */
  commonMargin?: number;
  /**
   * Words common in spoken English: a Latin-script text made only of them is English, whatever the
   * n-grams say (they have too few letters to go on in "Hello." or "OK."). None by default.
   */
  commonEnglishWords?: ReadonlySet<string>;
  /**
   * Greetings, thanks and other everyday words, each with the languages it belongs to: a
   * Latin-script text made only of one language's words is that language ("Hola!", "Hej då!"),
   * and of words several languages share, the closest of those. None by default.
   */
  everydayWords?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * LanguageDetector for short sentences: the script first (Han with kana is Japanese, without it
 * Chinese; Hangul, Greek, Thai... name their language), then eld's n-gram scores among the
 * languages of that script that espeak-ng speaks, with a prior for the most used one (English for
 * Latin script, Russian for Cyrillic) that yields only to a clearly closer language. Answers a
 * lower-case ISO 639-1 code, or null when the text has no letters or a script no voice reads.
 */
export class ShortTextLanguageDetector implements LanguageDetector {
  private readonly preferredMargin: number;
  private readonly commonMargin: number;
  private readonly commonEnglishWords: ReadonlySet<string>;
  private readonly everydayWords: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(
    private readonly scores: LanguageScores,
    options: ShortTextLanguageDetectorOptions = {},
  ) {
    this.preferredMargin = options.preferredMargin ?? 0.95;
    this.commonMargin = options.commonMargin ?? 0.9;
    this.commonEnglishWords = options.commonEnglishWords ?? new Set();
    this.everydayWords = options.everydayWords ?? new Map();
  }

  /**
   * Over eld's medium database (Apache-2.0, shipped in the npm package), held compactly
   * (eld-compact-scores.ts): the large one is no more accurate on short sentences (docs/speech.md
   * has the comparison), the 3,000 most common words of spoken English (common-english-words.ts)
   * and the everyday words of 17 languages (everyday-words.ts).
   */
  static async create(options: ShortTextLanguageDetectorOptions = {}): Promise<ShortTextLanguageDetector> {
    const [scores, englishWords] = await Promise.all([eldCompactScores('medium'), commonEnglishWords()]);
    return new ShortTextLanguageDetector(scores, { commonEnglishWords: englishWords, everydayWords: everydayWordLanguages(), ...options });
  }

  detect(text: string): string | null {
    if (!/\p{L}/u.test(text)) return null;
    const verdict = languageByScript(text);
    switch (verdict.kind) {
      case 'language':
        return verdict.language;
      case 'unknown':
        return null;
      case 'shared':
        return this.choose(text, verdict.languages, verdict.preferred);
      case 'latin':
        if (this.allCommonEnglish(text)) return 'en';
        return this.fromEverydayWords(text) ?? this.choose(text, LATIN_LANGUAGES, 'en', COMMON_LANGUAGES);
    }
  }

  private allCommonEnglish(text: string): boolean {
    const words = wordsOf(text);
    return words.length > 0 && words.every((w) => this.commonEnglishWords.has(w));
  }

  /**
   * The language whose everyday words make up the whole text, or null. Words several languages
   * share ("hola" is Spanish and Catalan) leave those languages to the n-grams, the common one
   * first when they have no score at all.
   */
  private fromEverydayWords(text: string): string | null {
    const words = wordsOf(text);
    if (words.length === 0) return null;
    let candidates: string[] | null = null;
    for (const word of words) {
      const languages = this.everydayWords.get(word);
      if (!languages) return null;
      candidates = candidates === null ? [...languages] : candidates.filter((l) => languages.has(l));
      if (candidates.length === 0) return null;
    }
    if (candidates!.length === 1) return candidates![0]!;
    const first = candidates!.find((l) => COMMON_LANGUAGES.has(l)) ?? candidates![0]!;
    return this.choose(text, candidates!, first, COMMON_LANGUAGES);
  }

  private choose(text: string, languages: readonly string[], preferred: string, common?: ReadonlySet<string>): string {
    const scores = this.scores(text);
    const ranked = languages.filter((l) => (scores[l] ?? 0) > 0).sort((a, b) => scores[b]! - scores[a]!);
    const best = ranked[0];
    if (best === undefined) return preferred;
    const top = scores[best]!;
    if ((scores[preferred] ?? 0) >= this.preferredMargin * top) return preferred;
    if (common && !common.has(best)) {
      const closestCommon = ranked.find((l) => common.has(l));
      if (closestCommon && scores[closestCommon]! >= this.commonMargin * top) return closestCommon;
    }
    return best;
  }
}
