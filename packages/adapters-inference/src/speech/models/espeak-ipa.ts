import Init, { type ESpeakNGWorker } from '@echogarden/espeak-ng-emscripten';

/**
 * A word of the input and its IPA phonemes, as espeak-ng spells them. The engines (Piper, Kokoro)
 * turn this into their own symbols, each the way its trainer did (piper-voice-config.ts, kokoro-phonemes.ts).
 */
export interface PhonemizedWord {
  /** The word as written, punctuation included (what word timings report). */
  word: string;
  /**
   * One entry per phoneme, in order: a stress mark stays with the phoneme after it and a tied sound
   * (tʃ, aɪ, tsː) is ONE entry, as espeak separates them; language-switch flags such as `(en)` are removed.
   */
  phonemes: string[];
  /** Punctuation written before the word (`¿`, `“`, `(`) and after it (`,`, `?!`, `.”`). */
  before: string;
  after: string;
}

/** espeak-ng marks a word it reads in another language's rules as `(en)` ... `(fr)`: the flags are not phonemes. */
const LANGUAGE_FLAG = /^\([a-z]{2,3}(?:-[a-z0-9]+)*\)$/i;
const LEADING_PUNCTUATION = /^[^\p{L}\p{N}\p{M}]+/u;
const TRAILING_PUNCTUATION = /[^\p{L}\p{N}\p{M}]+$/u;

/**
 * Text to IPA with the espeak-ng WASM engine (the phonemizer Piper and Kokoro were trained on).
 * Synchronous and slow enough to matter (espeak renders the sentence to find its phonemes: ~70-100 ms
 * for a long sentence, several hundred ms on the first use of a voice), so it runs in worker
 * threads (espeak-phonemizer-worker.ts), never on the main event loop.
 */
export class EspeakIpa {
  private currentVoice: string | null = null;
  private constructor(private readonly engine: ESpeakNGWorker & { synthesize_ipa(text: string): { code: number; ipa: string } }) {}

  static async create(): Promise<EspeakIpa> {
    const module = await Init();
    return new EspeakIpa(new module.eSpeakNGWorker() as never);
  }

  phonemize(text: string, voice: string): PhonemizedWord[] {
    this.useVoice(voice);
    // Input is parsed as SSML: escape markup characters.
    const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const { code, ipa } = this.engine.synthesize_ipa(escaped);
    if (code !== 0) throw new Error(`espeak-ng could not phonemize (code ${code})`);
    return pairWords(text, ipa);
  }

  /**
   * Voices are found by file name (`en-us`, `fr`, `en-gb-x-rp`); Piper and Kokoro also name them by
   * language (`en-gb`, `fr-fr`), which this build's lookup by name refuses: those are looked up by language.
   */
  private useVoice(voice: string): void {
    if (this.currentVoice === voice) return;
    const engine = this.engine as unknown as { set_voice(name: string, language?: string): number };
    if (engine.set_voice(voice) !== 0 && engine.set_voice('', voice) !== 0) throw new Error(`espeak-ng has no voice '${voice}'`);
    this.currentVoice = voice;
  }
}

/**
 * espeak's IPA separates phonemes with `_`, words with spaces and clauses with new lines; it can
 * merge or split words (numbers, clitics), so the written words are paired with phoneme words by
 * position and any surplus is folded into the last word. A written token without letters or digits
 * (a dash, a lone quote) is punctuation of the word before it (or, first, of the word after it).
 */
export function pairWords(text: string, ipa: string): PhonemizedWord[] {
  const phonemeWords = ipa
    .split(/\s+/)
    .map((w) => w.split('_').filter((p) => p && !LANGUAGE_FLAG.test(p)))
    .filter((units) => units.length > 0);
  const written: { word: string; before: string; after: string }[] = [];
  let pending = '';
  for (const token of text.split(/\s+/).filter(Boolean)) {
    if (!/[\p{L}\p{N}]/u.test(token)) {
      if (written.length > 0) written[written.length - 1]!.after += token;
      else pending += token;
      continue;
    }
    const before = LEADING_PUNCTUATION.exec(token)?.[0] ?? '';
    const after = TRAILING_PUNCTUATION.exec(token)?.[0] ?? '';
    written.push({ word: token, before: pending + before, after });
    pending = '';
  }
  if (written.length === 0) return phonemeWords.map((phonemes) => ({ word: '', phonemes, before: '', after: '' }));
  return written.map((w, i) => {
    const last = i === written.length - 1;
    const phonemes = last ? phonemeWords.slice(i).flatMap((units, k) => (k > 0 ? [' ', ...units] : units)) : (phonemeWords[i] ?? []);
    return { ...w, phonemes };
  });
}
