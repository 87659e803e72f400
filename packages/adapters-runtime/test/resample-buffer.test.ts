import { expect } from 'chai';
import { resampleInt16 } from '../src/index.js';

// The whole-buffer form of the one resampler, as the speech engines and the test inputs use it.
describe('resampleInt16 (whole buffers)', () => {
  const tone = (hz: number, rate: number, secondsLong: number): Int16Array => {
    const out = new Int16Array(Math.round(rate * secondsLong));
    for (let i = 0; i < out.length; i++) out[i] = Math.round(10000 * Math.sin((2 * Math.PI * hz * i) / rate));
    return out;
  };

  for (const [from, to] of [
    [16000, 24000],
    [22050, 24000],
    [8000, 48000],
    [48000, 16000],
  ] as const) {
    it(`converts ${from} Hz to ${to} Hz keeping duration, pitch and alignment`, () => {
      const input = tone(200, from, 2);
      const out = resampleInt16(input, from, to);
      expect(out.length).to.equal(Math.round((input.length * to) / from));
      let crossings = 0;
      for (let i = 1; i < out.length; i++) if (out[i - 1]! < 0 !== out[i]! < 0) crossings++;
      expect(crossings / 2 / 2).to.be.closeTo(200, 1); // zero crossings over 2 s: frequency kept
      // No leading filter delay: the sine starts rising at sample 0 in both.
      const quarter = Math.round(to / 200 / 4);
      expect(out[quarter]!).to.be.greaterThan(8000);
    });
  }

  it("ends with the input's last samples, not the filter's held-back silence", () => {
    for (const [from, to] of [
      [22050, 48000],
      [48000, 16000],
      [24917, 48000],
    ] as const) {
      // A constant level: only the last output samples see the silence after the end (about half level).
      const out = resampleInt16(new Int16Array(from / 10).fill(10000), from, to);
      const lastMs = Array.from(out.subarray(out.length - Math.round(to / 1000)));
      expect(Math.min(...lastMs), `${from} -> ${to}`).to.be.greaterThan(3000);
    }
  });

  it('returns the input when the rates match', () => {
    const input = tone(100, 16000, 0.1);
    expect(resampleInt16(input, 16000, 16000)).to.equal(input);
  });
});
