import type { LanguageDetector } from '@svc/core';

/** How often a detector named one language's sentences as that language. */
export interface LanguageAccuracy {
  language: string;
  sentences: number;
  correct: number;
  /** Share of the sentences named correctly, in percent. */
  percent: number;
  /** Each sentence named otherwise, with what it was named (null: no answer). */
  misses: { sentence: string; detected: string | null }[];
}

/**
 * One row per language of `sentences` (language -> its sentences), in the set's order. `whenUnsure`
 * stands for a null answer: the speech use case speaks English then, so 'en' measures what a
 * listener hears.
 */
export function languageAccuracy(
  detector: LanguageDetector,
  sentences: Readonly<Record<string, readonly string[]>>,
  whenUnsure: string | null = null,
): LanguageAccuracy[] {
  return Object.entries(sentences).map(([language, list]) => {
    const misses = list
      .map((sentence) => ({ sentence, detected: detector.detect(sentence) ?? whenUnsure }))
      .filter((m) => m.detected !== language);
    const correct = list.length - misses.length;
    return { language, sentences: list.length, correct, percent: (100 * correct) / list.length, misses };
  });
}
