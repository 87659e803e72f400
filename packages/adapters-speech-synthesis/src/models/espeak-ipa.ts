import Init, { type ESpeakNGWorker } from '@echogarden/espeak-ng-emscripten';
import { clauseEndOf, type ClauseEnd } from '../espeak/clause-punctuation.js';
import { anchorEspeakWords, shareEspeakWords, writtenWords, type WrittenWord } from '../espeak/written-words.js';

/**
 * A word of the input and its IPA phonemes, as espeak-ng spells them. The engines (Piper, Kokoro)
 * turn this into their own symbols, each the way its trainer did (piper-voice-config.ts, kokoro-phonemes.ts).
 */
export interface PhonemizedWord {
  /** The word as written, punctuation included (what word timings report). */
  word: string;
  /**
   * One entry per phoneme, in order: a stress mark stays with the phoneme after it and a tied sound
   * (tʃ, aɪ, tsː) is ONE entry, as espeak separates them; language-switch flags such as `(en)` are
   * removed. Where espeak spoke several written words as one, each has its share of that word's phonemes.
   */
  phonemes: string[];
  /** The text before the first word (`¿`, `“`, `(`); empty for the others. */
  before: string;
  /** The text between this word's last letter and the next word's first (`, `, `?! `, `.” `, `—`), or the end. */
  after: string;
  /** espeak spoke this word and the next as one word ("was a" -> wʌzɐ): no word boundary between their phonemes. */
  joinedWithNext?: boolean;
  /** espeak ended a clause after this word, and how (the punctuation Piper writes for it). */
  clauseEnd?: ClauseEnd;
}

type Engine = ESpeakNGWorker & {
  synthesize_and_get_phonemes(
    text: string,
    callback: (samples: Int16Array, events: { type: string; text_position: number }[]) => boolean | number,
  ): string;
  /** espeak_TextToPhonemes clause by clause (phonemes separated by `_`, clauses by ` | `): a pointer to a C string the caller frees. */
  text_to_phonemes(text: string, ipa: number): unknown;
  set_voice(name: string, language?: string): number;
};

/** The module's memory, to read and free the string text_to_phonemes returns. */
interface EngineMemory {
  getPointer(pointer: unknown): number;
  HEAPU8: Uint8Array;
  _free(pointer: number): void;
}

/** espeak-ng's highest speaking rate (words per minute). */
const FASTEST_RATE = 450;

/** espeak-ng marks a word it reads in another language's rules as `(en)` ... `(fr)`: the flags are not phonemes. */
const LANGUAGE_FLAGS = /\([^)]*\)/g;

/**
 * Text to IPA with the espeak-ng WASM engine (the phonemizer Piper and Kokoro were trained on).
 * The phonemes and the clauses are espeak_TextToPhonemes's, the call piper-phonemize makes, one
 * clause at a time (one group per spoken word, phonemes separated by `_`); where each spoken word is
 * in the text comes from espeak's word events while it speaks the same text (same words, same
 * order). Clause ends are espeak's own, not the text's punctuation. Synchronous and slow enough to
 * matter (espeak renders the sentence to report its words), so it runs in worker threads
 * (espeak-phonemizer-worker.ts), never on the main event loop.
 */
export class EspeakIpa {
  private currentVoice: string | null = null;
  private constructor(
    private readonly engine: Engine,
    private readonly memory: EngineMemory,
  ) {}

  static async create(): Promise<EspeakIpa> {
    const module = await Init();
    const engine = new module.eSpeakNGWorker() as Engine;
    // Only the word events of its speech are used, never the audio: at espeak's fastest rate it
    // renders the fewest samples (the words and their order do not depend on the rate).
    engine.set_rate(FASTEST_RATE);
    return new EspeakIpa(engine, module as unknown as EngineMemory);
  }

  phonemize(text: string, voice: string): PhonemizedWord[] {
    this.useVoice(voice);
    const positions: number[] = [];
    // This entry point reads plain text (no SSML): positions are code points of `text` itself.
    this.engine.synthesize_and_get_phonemes(text, (_samples, events) => {
      for (const e of events) if (e.type === 'word') positions.push(e.text_position - 1);
      return false;
    });
    // A word espeak joined to the one before gets its share by its phonemes said alone ("from the": fɹʌm + ðə).
    const alone = (word: WrittenWord) => spokenWords(this.clauses(word.text)).reduce((n, w) => n + w.phonemes.length, 0);
    return phonemizedWords(text, this.clauses(text), positions, alone);
  }

  /** espeak_TextToPhonemes on the whole text: one phoneme string per clause. */
  private clauses(text: string): string[] {
    const pointer = this.memory.getPointer(this.engine.text_to_phonemes(text, 1));
    try {
      let end = pointer;
      while (this.memory.HEAPU8[end] !== 0) end++;
      return new TextDecoder().decode(this.memory.HEAPU8.subarray(pointer, end)).split(' | ');
    } finally {
      this.memory._free(pointer);
    }
  }

  /**
   * Voices are found by file name (`en-us`, `fr`, `en-gb-x-rp`); Piper and Kokoro also name them by
   * language (`en-gb`, `fr-fr`), which this build's lookup by name refuses: those are looked up by language.
   */
  private useVoice(voice: string): void {
    if (this.currentVoice === voice) return;
    if (this.engine.set_voice(voice) !== 0 && this.engine.set_voice('', voice) !== 0) throw new Error(`espeak-ng has no voice '${voice}'`);
    this.currentVoice = voice;
  }
}

/** espeak's spoken words, clause by clause: their phonemes (language flags removed) and the clause each is in. */
export function spokenWords(clauses: readonly string[]): { phonemes: string[]; clause: number }[] {
  const words: { phonemes: string[]; clause: number }[] = [];
  clauses
    .map((c) => c.replace(LANGUAGE_FLAGS, '').trim())
    .filter(Boolean)
    .forEach((clause, index) => {
      for (const group of clause.split(/\s+/)) {
        const phonemes = group.split('_').filter(Boolean);
        if (phonemes.length > 0) words.push({ phonemes, clause: index });
      }
    });
  return words;
}

/**
 * The written words with their phonemes: espeak's words (`clauses`: espeak_TextToPhonemes's, one
 * string per clause) are paired with the text by the positions of its word events
 * (written-words.ts), joined words split (by `weightOf`, else letters), and each clause's end
 * placed after the written word espeak ended it on. Should the phonemes and the events ever disagree on the number of words, the
 * surplus spoken words go to the last event's word (nothing is lost).
 */
export function phonemizedWords(
  text: string,
  clauses: readonly string[],
  positions: readonly number[],
  weightOf?: (word: WrittenWord) => number,
): PhonemizedWord[] {
  const spoken = spokenWords(clauses);
  const written = writtenWords(text);
  const cps = [...text];
  if (written.length === 0) return [];
  const eventPositions = positions.length > 0 ? positions.slice(0, spoken.length) : [written[0]!.start];
  const anchors = anchorEspeakWords(written, eventPositions);
  // espeak words that fall in one written word ("23": twenty three) stay apart, as espeak writes them.
  const units = anchors.map((anchor, k) => {
    const own = (k === anchors.length - 1 ? spoken.slice(k) : [spoken[k]!]).map((w) => w.phonemes);
    return own.flatMap((phonemes, i) => (i > 0 || (k > 0 && anchors[k - 1] === anchor) ? [' ', ...phonemes] : phonemes));
  });
  const shares = shareEspeakWords(written, anchors, units, weightOf);
  // The written word each clause ends on: the last one its last spoken word covers.
  const clauseEnds = new Map<number, number>();
  anchors.forEach((anchor, k) => {
    const clause = k === anchors.length - 1 ? spoken[spoken.length - 1]!.clause : spoken[k]!.clause;
    let last = anchor;
    while (last + 1 < written.length && shares[last]!.joinedWithNext) last++;
    clauseEnds.set(clause, Math.max(last, clauseEnds.get(clause) ?? -1));
  });
  const endsClause = new Set(clauseEnds.values());
  return written.map((w, i) => {
    const nextFirst = written[i + 1]?.first ?? cps.length;
    const after = cps.slice(w.last, nextFirst).join('');
    const word: PhonemizedWord = {
      word: w.text,
      phonemes: shares[i]!.units,
      before: i === 0 ? cps.slice(0, w.first).join('') : '',
      after,
      joinedWithNext: shares[i]!.joinedWithNext,
    };
    if (endsClause.has(i) || i === written.length - 1) word.clauseEnd = clauseEndOf(after, i === written.length - 1);
    return word;
  });
}
