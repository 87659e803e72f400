import { expect } from 'chai';
import { CountsByKey } from '../../src/shared/counts-by-key.js';

describe('CountsByKey', () => {
  it('counts up and down per key and never goes below zero', () => {
    const counts = new CountsByKey();
    counts.add('a');
    counts.add('a');
    counts.add('b');
    expect([counts.of('a'), counts.of('b'), counts.of('c')]).to.deep.equal([2, 1, 0]);
    counts.remove('a');
    counts.remove('b');
    expect([counts.of('a'), counts.of('b')]).to.deep.equal([1, 0]);
    counts.remove('c');
    counts.remove('a');
    expect([counts.of('a'), counts.of('c')]).to.deep.equal([0, 0]);
  });
});
