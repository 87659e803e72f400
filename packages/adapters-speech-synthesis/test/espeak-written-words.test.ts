import { expect } from 'chai';
import { clauseEndOf } from '../src/espeak/clause-punctuation.js';
import { anchorEspeakWords, shareEspeakWords, splitByLetters, writtenWords } from '../src/espeak/written-words.js';
import { phonemizedWords } from '../src/models/espeak-ipa.js';

describe('espeak words on the written words, and its clause ends as Piper reads them', () => {
  it('written words are space- or dash-separated tokens with letters; punctuation-only tokens are not words', () => {
    const words = writtenWords('Then—no, "wait" - ok');
    expect(words.map((w) => w.text)).to.deep.equal(['Then', 'no,', '"wait"', 'ok']);
    expect(words.map((w) => [w.first, w.last, w.letters])).to.deep.equal([
      [0, 4, 4],
      [5, 7, 2],
      [10, 14, 4],
      [18, 20, 2],
    ]);
  });

  it('an espeak position on the punctuation before a word belongs to that word; positions never go back', () => {
    const words = writtenWords('it -- not now');
    // espeak put "not" at the dashes (0-based 3)
    expect(anchorEspeakWords(words, [0, 3, 10])).to.deep.equal([0, 1, 2]);
  });

  it("espeak's positions lagging after a pair it reads as one move onto the word they belong to; a number read as two words stays one word", () => {
    // espeak-ng en-us puts the second "be" of "to be, that" at 14 (inside "to"), "row" of "in a row" inside "in"
    expect(anchorEspeakWords(writtenWords('not to be, that'), [0, 4, 5, 11])).to.deep.equal([0, 1, 2, 3]);
    expect(anchorEspeakWords(writtenWords('sat in a row.'), [0, 4, 5])).to.deep.equal([0, 1, 3]);
    expect(anchorEspeakWords(writtenWords('had 23 ships'), [0, 4, 5, 7])).to.deep.equal([0, 1, 1, 2]);
    expect(anchorEspeakWords(writtenWords('had 23'), [0, 4, 5])).to.deep.equal([0, 1, 1]);
  });

  it('joined words share the joined phonemes by letters, at phoneme boundaries; no word is left empty', () => {
    expect(splitByLetters([3, 1], 4)).to.deep.equal([3]); // was a: w ʌ z | ɐ
    expect(splitByLetters([4, 2, 5], 6)).to.deep.equal([2, 3]); // tout le monde: t u | l | m ɔ̃ d
    expect(splitByLetters([1, 1, 1], 3)).to.deep.equal([1, 2]);
    expect(splitByLetters([10, 1], 2)).to.deep.equal([1]);
    const words = writtenWords('Bonjour tout le monde.');
    const shares = shareEspeakWords(
      words,
      [0, 1],
      [
        ['b', 'ɔ̃', 'ʒ', 'ˈu', 'ʁ'],
        ['t', 'u', 'l', 'm', 'ˈɔ̃', 'd'],
      ],
    );
    expect(shares.map((s) => s.units.join(''))).to.deep.equal(['bɔ̃ʒˈuʁ', 'tu', 'l', 'mˈɔ̃d']);
    expect(shares.map((s) => s.joinedWithNext)).to.deep.equal([false, true, true, false]);
  });

  it('several espeak words in one written word stay apart in it ("23": twenty three)', () => {
    const words = phonemizedWords('had 23 ships', ['h_æ_d t_w_ˈɛ_n_t_i θ_ɹ_ˈiː ʃ_ˈɪ_p_s'], [0, 4, 5, 7]);
    expect(words.map((w) => w.phonemes.join(''))).to.deep.equal(['hæd', 'twˈɛnti θɹˈiː', 'ʃˈɪps']);
  });

  it("clause ends: each of espeak_TextToPhonemes's clauses ends on the written word espeak's last word covers", () => {
    const words = phonemizedWords('It was a fact, I think.', ['ɪ_t w_ʌ_z_ɐ f_ˈæ_k_t', 'aɪ θ_ˈɪ_ŋ_k'], [0, 3, 9, 15, 17]);
    expect(words.map((w) => [w.word, w.phonemes.join(''), w.clauseEnd?.mark])).to.deep.equal([
      ['It', 'ɪt', undefined],
      ['was', 'wʌz', undefined],
      ['a', 'ɐ', undefined],
      ['fact,', 'fˈækt', ','],
      ['I', 'aɪ', undefined],
      ['think.', 'θˈɪŋk', '.'],
    ]);
  });

  it("terminators follow espeak's clause punctuation as piper-phonemize masks it", () => {
    const mark = (gap: string, last = false) => clauseEndOf(gap, last);
    expect(mark(', ')).to.deep.equal({ mark: ',', sentence: false });
    expect(mark('." ')).to.deep.equal({ mark: '.', sentence: true });
    expect(mark('?! ')).to.deep.equal({ mark: '?', sentence: true });
    expect(mark(' — ')).to.deep.equal({ mark: ';', sentence: false });
    expect(mark('… ')).to.deep.equal({ mark: '', sentence: false });
    expect(mark('... ')).to.deep.equal({ mark: '', sentence: false });
    expect(mark('.. ')).to.deep.equal({ mark: '.', sentence: true });
    expect(mark('، ')).to.deep.equal({ mark: ',', sentence: false });
    expect(mark('। ')).to.deep.equal({ mark: '', sentence: true });
    expect(mark('', true)).to.deep.equal({ mark: '', sentence: true });
    expect(mark(' ')).to.deep.equal({ mark: '', sentence: false });
  });
});
