import { expect } from 'chai';
import { wordErrorRate } from './word-error-rate.js';

describe('wordErrorRate (test helper)', () => {
  it('counts substitutions, insertions and deletions against the reference length', () => {
    expect(wordErrorRate('he was not an ill man', 'he was not an ill man')).to.equal(0);
    expect(wordErrorRate('he was not an ill man', 'he was a nil man')).to.be.closeTo(3 / 6, 1e-9);
    expect(wordErrorRate('a b c d', 'a x b c d e')).to.equal(2 / 4);
    expect(wordErrorRate('Mister John, Dashwood!', 'mr john dashwood')).to.equal(0);
  });
});
