import { expect } from 'chai';
import Init from '@echogarden/espeak-ng-emscripten';
import { EspeakPhonemizer } from '../../src/models/espeak-phonemizer.js';
import { piperPhonemeSequence } from '../../src/piper/piper-voice-config.js';

/** Everyday sentences, several with words espeak-ng speaks as one ("in the", "to be", "was a", "has been"). */
const SENTENCES = [
  'Please call me back when you get home tonight.',
  'The weather today is sunny with a light breeze from the west.',
  'Please remember to buy milk, eggs and bread on your way home.',
  "Our meeting has been moved to three o'clock on Thursday afternoon.",
  'She opened the window and listened to the birds singing outside.',
  "I'd like to order a pizza, but I don't have any cash.",
  'What time does the 7:45 train leave for New York?',
  'In 1999, about 60% of people used e-mail.',
  'A cat, a dog and a bird sat in a row.',
  'To be or not to be, that is the question.',
];

describe('espeak-ng phonemizer (real WASM engine in its worker thread): every written word gets its phonemes', function () {
  this.timeout(60000);
  let phonemizer: EspeakPhonemizer;
  before(async () => {
    phonemizer = await EspeakPhonemizer.create();
  });
  after(async () => phonemizer.release());

  it('ten everyday sentences: one entry per written word, none without phonemes, clause ends where espeak made them', async () => {
    for (const text of SENTENCES) {
      const words = await phonemizer.phonemize(text, 'en-us');
      expect(
        words.map((w) => w.word),
        text,
      ).to.deep.equal(text.split(' '));
      for (const w of words) expect(w.phonemes.length, `${text}: ${w.word}`).to.be.greaterThan(0);
      expect(words.at(-1)!.clauseEnd, text).to.not.equal(undefined);
    }
  });

  it('joined words get their own share at a phoneme boundary, weighed by their phonemes said alone: "from the" is fɹʌm + ðə', async () => {
    const words = await phonemizer.phonemize('A light breeze from the west.', 'en-us');
    const byWord = Object.fromEntries(words.map((w) => [w.word, w.phonemes.join('')]));
    // by letters (4 : 3 of 6 phonemes) it would be fɹʌ + mðə
    expect(byWord).to.include({ from: 'fɹʌm', the: 'ðə' });
  });

  it('joined words get their own share at a phoneme boundary: "sat in a row" is ɪn + ɐ, then ɹˈoʊ', async () => {
    const words = await phonemizer.phonemize('A bird sat in a row.', 'en-us');
    const byWord = Object.fromEntries(words.map((w) => [w.word, w.phonemes.join('')]));
    expect(byWord).to.include({ in: 'ˌɪn', a: 'ɐ', 'row.': 'ɹˈoʊ' });
    expect(words.find((w) => w.word === 'in')!.joinedWithNext).to.equal(true);
    expect(words.find((w) => w.word === 'row.')!.clauseEnd).to.deep.equal({ mark: '.', sentence: true });
  });

  it("phonemes and clauses are those of espeak_TextToPhonemes, the call piper-phonemize makes (this build's text_to_phonemes: clause by clause)", async () => {
    const module = await Init();
    const engine = new module.eSpeakNGWorker() as unknown as {
      set_voice(v: string): number;
      text_to_phonemes(t: string, ipa: number): unknown;
    };
    const memory = module as unknown as { getPointer(p: unknown): number; HEAPU8: Uint8Array };
    engine.set_voice('en-us');
    const textToPhonemes = (text: string): string[] => {
      const start = memory.getPointer(engine.text_to_phonemes(text, 1));
      let end = start;
      while (memory.HEAPU8[end] !== 0) end++;
      // one string per clause, phonemes separated by `_`
      return new TextDecoder()
        .decode(memory.HEAPU8.subarray(start, end))
        .split(' | ')
        .map((clause) => clause.replace(/_/g, '').replace(/ +/g, ' ').trim());
    };
    for (const text of [...SENTENCES, 'Then—no, wait… what?', 'Mr. Smith arrived at 5 p.m. today.', 'Wait — no.']) {
      const words = await phonemizer.phonemize(text, 'en-us');
      const ours = piperPhonemeSequence(words, { phonemeMap: new Map(), vowelClusters: [] })
        .map((p) => p.phoneme)
        .join('')
        .normalize('NFC');
      const expected = textToPhonemes(text);
      expect(words.filter((w) => w.clauseEnd).length, text).to.equal(expected.length);
      // punctuation and the space between clauses are Piper's own (piper-voice-config.ts), not espeak's
      expect(ours.replace(/[.,?!:; ]/g, ''), text).to.equal(expected.join('').replace(/ /g, ''));
    }
  });
});
