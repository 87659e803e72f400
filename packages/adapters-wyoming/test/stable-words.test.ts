import { expect } from 'chai';
import { StableWords } from '../src/session/stable-words.js';

describe('StableWords (transcript chunks from changing hypotheses)', () => {
  it('sends a word once two hypotheses agree on it and it is not the last; chunks append to the transcript', () => {
    const w = new StableWords();
    const sent = [
      w.partial('had'),
      w.partial('had he'),
      w.partial('had he mary'),
      w.partial('had he married a'), // "mary" became "married": nothing new is agreed on
      w.partial('had he married a more'),
      w.final('had he married a more amiable woman'),
    ];
    expect(sent).to.deep.equal([null, 'had', ' he', null, ' married a', ' more amiable woman']);
    expect(sent.filter(Boolean).join('')).to.equal('had he married a more amiable woman');
  });

  it('sends nothing more when the final transcript revises what was sent', () => {
    const w = new StableWords();
    w.partial('the cat sat');
    expect(w.partial('the cat sat on')).to.equal('the cat sat');
    expect(w.final('a cat sat on the mat')).to.equal(null);
  });

  it('ignores case and spacing differences between partial and final text', () => {
    const w = new StableWords();
    w.partial('Hello  World again');
    expect(w.partial('hello world again now')).to.equal('hello world again');
    expect(w.final('hello world again now')).to.equal(' now');
  });
});
