import Init, { type ESpeakNGWorker } from '@echogarden/espeak-ng-emscripten';

/** A word of the input and its IPA phonemes (code points), as espeak-ng spells them. */
export interface PhonemizedWord {
  word: string;
  phonemes: string;
}

/**
 * Text to IPA with the espeak-ng WASM engine (the phonemizer Piper and Kokoro were trained on).
 * Synchronous and slow enough to matter (espeak renders the sentence to find its phonemes: ~70-100 ms
 * for a long sentence, several hundred ms on the first use of a voice), so it runs in a worker
 * thread (espeak-phonemizer-worker.ts), never on the main event loop.
 */
export class EspeakIpa {
  private currentVoice: string | null = null;
  private constructor(private readonly engine: ESpeakNGWorker & { synthesize_ipa(text: string): { code: number; ipa: string } }) {}

  static async create(): Promise<EspeakIpa> {
    const module = await Init();
    return new EspeakIpa(new module.eSpeakNGWorker() as never);
  }

  phonemize(text: string, voice: string): PhonemizedWord[] {
    if (this.currentVoice !== voice) {
      const code = this.engine.set_voice(voice);
      if (code !== 0) throw new Error(`espeak-ng has no voice '${voice}'`);
      this.currentVoice = voice;
    }
    // Input is parsed as SSML: escape markup characters.
    const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const { code, ipa } = this.engine.synthesize_ipa(escaped);
    if (code !== 0) throw new Error(`espeak-ng could not phonemize (code ${code})`);
    // espeak separates phonemes with `_` and words with spaces; it can merge or split words
    // (numbers, clitics), so the written words are paired with phoneme words by position and any
    // surplus is folded into the last word.
    const phonemeWords = ipa.replace(/_/g, '').split(/\s+/).filter(Boolean);
    const written = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
    if (written.length === 0) return phonemeWords.map((p) => ({ word: '', phonemes: p }));
    return written.map((word, i) => {
      const last = i === written.length - 1;
      const phonemes = last ? phonemeWords.slice(i).join(' ') : (phonemeWords[i] ?? '');
      return { word, phonemes };
    });
  }
}
