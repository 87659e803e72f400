import { expect } from 'chai';
import { PreparedFaceCache, type CachedFace } from '../src/prepared-face-cache.js';

const face = (n: number): CachedFace => ({ framed: { data: Uint8Array.of(n), width: 1, height: 1 }, landmarks: [] });

describe('PreparedFaceCache (lru-cache)', () => {
  it('keys by the digest of the bytes and the size: equal bytes meet, another size does not', () => {
    const a = PreparedFaceCache.key(Uint8Array.of(1, 2, 3), 640, 640);
    expect(PreparedFaceCache.key(Uint8Array.from([1, 2, 3]), 640, 640)).to.equal(a);
    expect(PreparedFaceCache.key(Uint8Array.of(1, 2, 3), 640, 480)).not.to.equal(a);
    expect(a).to.match(/^[0-9a-f]{64}:640x640$/);
  });

  it('evicts the least recently USED entry beyond its capacity (a get counts as a use)', () => {
    const cache = new PreparedFaceCache(2);
    cache.set('a', face(1));
    cache.set('b', face(2));
    expect(cache.get('a')?.framed.data[0]).to.equal(1); // a is now the most recent
    cache.set('c', face(3)); // evicts b, not a
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')?.framed.data[0]).to.equal(1);
    expect(cache.get('c')?.framed.data[0]).to.equal(3);
    expect(cache.size).to.equal(2);
  });

  it('keeps nothing with a capacity of 0', () => {
    const cache = new PreparedFaceCache(0);
    cache.set('a', face(1));
    expect(cache.get('a')).to.equal(undefined);
    expect(cache.size).to.equal(0);
  });
});
