import { expect } from 'chai';
import { trimLeadingSilence, trimTrailingSilence } from '../../src/speech/join-silence.js';

async function* chunked(samples: number[], size: number): AsyncGenerator<Int16Array> {
  for (let i = 0; i < samples.length; i += size) yield Int16Array.from(samples.slice(i, i + size));
}
async function all(chunks: AsyncIterable<Int16Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const c of chunks) out.push(...c);
  return out;
}
const zeros = (n: number) => new Array<number>(n).fill(0);
const tone = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? 5000 : -5000));

describe('join silence (the first-clause cut of a stream)', () => {
  for (const size of [1, 7, 64, 1000]) {
    it(`cuts opening silence down to what is kept, across chunks of ${size}, and says how much went`, async () => {
      let dropped = -1;
      const out = await all(trimLeadingSilence(chunked([...zeros(300), 300, ...tone(50), ...zeros(30)], size), 20, (n) => (dropped = n)));
      expect(out).to.deep.equal([...zeros(20), 300, ...tone(50), ...zeros(30)]);
      expect(dropped).to.equal(280);
    });

    it(`cuts closing silence down to what is kept, across chunks of ${size}, keeping quiet parts inside`, async () => {
      const body = [...tone(40), ...zeros(100), ...tone(40)];
      const out = await all(trimTrailingSilence(chunked([...zeros(10), ...body, ...zeros(300)], size), 20));
      expect(out).to.deep.equal([...zeros(10), ...body, ...zeros(20)]);
    });
  }

  it('passes silent audio through the leading trim unchanged, and shorter silence than kept untouched', async () => {
    expect(await all(trimLeadingSilence(chunked(zeros(50), 8), 20, () => undefined))).to.deep.equal(zeros(50));
    let dropped = -1;
    expect(await all(trimLeadingSilence(chunked([...zeros(5), ...tone(4)], 3), 20, (n) => (dropped = n)))).to.deep.equal([
      ...zeros(5),
      ...tone(4),
    ]);
    expect(dropped).to.equal(0);
  });

  it('gives the first sound of a trailing-trimmed stream as soon as its chunk arrives', async () => {
    const source = chunked([...tone(10), ...zeros(10), ...tone(10), ...zeros(10)], 20);
    const it = trimTrailingSilence(source, 0)[Symbol.asyncIterator]();
    expect([...(await it.next()).value!]).to.deep.equal(tone(10));
  });
});
