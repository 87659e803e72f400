import { expect } from 'chai';
import { EspeakPhonemizer } from '../../../src/speech/models/espeak-phonemizer.js';

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
      expect(words.map((w) => w.word), text).to.deep.equal(text.split(' '));
      for (const w of words) expect(w.phonemes.length, `${text}: ${w.word}`).to.be.greaterThan(0);
      expect(words.at(-1)!.clauseEnd, text).to.not.equal(undefined);
    }
  });

  it('joined words get their own share at a phoneme boundary: "sat in a row" is ɪn + ɐ, then ɹˈoʊ', async () => {
    const words = await phonemizer.phonemize('A bird sat in a row.', 'en-us');
    const byWord = Object.fromEntries(words.map((w) => [w.word, w.phonemes.join('')]));
    expect(byWord).to.include({ in: 'ˌɪn', a: 'ɐ', 'row.': 'ɹˈoʊ' });
    expect(words.find((w) => w.word === 'in')!.joinedWithNext).to.equal(true);
    expect(words.find((w) => w.word === 'row.')!.clauseEnd).to.deep.equal({ mark: '.', sentence: true });
  });
});
