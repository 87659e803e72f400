import { expect } from 'chai';
import { misakiEnglishPhonemes } from '../../src/kokoro/misaki-english.js';
import { kokoroWordSymbols } from '../../src/kokoro/kokoro-phonemes.js';

describe("Kokoro English spelled as misaki spells espeak-ng's phonemes (SVC_KOKORO_ENGLISH=misaki)", () => {
  const us = (...units: string[]) => misakiEnglishPhonemes(units, false);
  const gb = (...units: string[]) => misakiEnglishPhonemes(units, true);

  it('tied sounds become misaki symbols: aɪ I, eɪ A, oʊ O (US), dʒ ʤ, tʃ ʧ, ɔɪ Y, aʊ W; stress marks stay', () => {
    expect(us('h', 'ə', 'l', 'ˈoʊ')).to.equal('həlˈO');
    expect(us('ˈaɪ')).to.equal('ˈI');
    expect(us('n', 'ˈeɪ', 'm')).to.equal('nˈAm');
    expect(us('dʒ', 'ˈʌ', 'dʒ')).to.equal('ʤˈʌʤ');
    expect(us('tʃ', 'ˈɜː', 'tʃ')).to.equal('ʧˈɜɹʧ');
    expect(us('b', 'ˈɔɪ')).to.equal('bˈY');
    expect(us('h', 'ˈaʊ', 's')).to.equal('hˈWs');
  });

  it('US English: ɚ is əɹ, ɜː is ɜɹ and no length marks; British keeps ː and has Q for əʊ', () => {
    expect(us('w', 'ˈɔː', 't', 'ɚ')).to.equal('wˈɔtəɹ');
    expect(us('f', 'ˈiː', 'l')).to.equal('fˈil');
    expect(gb('h', 'ə', 'l', 'ˈəʊ')).to.equal('həlˈQ');
    expect(gb('f', 'ˈiː', 'l')).to.equal('fˈiːl');
    expect(gb('w', 'ˈɜː', 'd')).to.equal('wˈɜːd');
  });

  it('kokoro-js stays the default; the setting switches English only (other languages are misaki already)', () => {
    const word = { word: 'Hello', phonemes: ['h', 'ə', 'l', 'ˈoʊ'], before: '', after: '' };
    expect(kokoroWordSymbols(word, 'a', true)).to.equal('həlˈoʊ');
    expect(kokoroWordSymbols(word, 'a', true, 'misaki')).to.equal('həlˈO');
    expect(kokoroWordSymbols({ ...word, phonemes: ['p', 'ˈi', 'tsː', 'a'] }, 'i', true, 'kokoro-js')).to.equal('pˈiʦːa');
  });
});
