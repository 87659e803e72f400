import { expect } from 'chai';
import { decodeBase64, encodeBase64 } from '../../src/shared/base64.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

describe('base64 (shared by realtime audio and inline media)', () => {
  it('round-trips every length', () => {
    for (let n = 0; n < 40; n++) {
      const data = new Uint8Array(n).map((_, i) => (i * 37 + 11) & 255);
      expect(Array.from(decodeBase64(encodeBase64(data))!)).to.deep.equal(Array.from(data));
    }
  });

  it('strict by default: padding required, standard alphabet only', () => {
    expect(text(decodeBase64('aGk='))).to.equal('hi');
    expect(decodeBase64('aGk')).to.equal(null);
    expect(decodeBase64('a-k=')).to.equal(null);
    expect(decodeBase64('aG=k')).to.equal(null);
    expect(decodeBase64('a===')).to.equal(null);
    expect(decodeBase64('aGk= ')).to.equal(null);
  });

  it('lenient mode accepts URL-safe and unpadded text, and still refuses junk', () => {
    const lenient = { urlSafe: true, requirePadding: false };
    expect(text(decodeBase64('aGk', lenient))).to.equal('hi');
    expect(text(decodeBase64('aGk=', lenient))).to.equal('hi');
    expect(Array.from(decodeBase64('-_8', lenient)!)).to.deep.equal([0xfb, 0xff]);
    expect(decodeBase64('a', lenient)).to.equal(null);
    expect(decodeBase64('not base64!', lenient)).to.equal(null);
    expect(text(decodeBase64(encodeBase64(bytes('hello world')), lenient))).to.equal('hello world');
  });
});
