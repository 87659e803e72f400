import { expect } from 'chai';
import { SpeexResampler } from '../src/index.js';

describe('SpeexResampler', () => {
  let resampler: SpeexResampler;
  before(async () => {
    resampler = await SpeexResampler.create();
  });

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
      const out = resampler.resample(input, from, to);
      expect(out.length).to.equal(Math.round((input.length * to) / from));
      let crossings = 0;
      for (let i = 1; i < out.length; i++) if (out[i - 1]! < 0 !== out[i]! < 0) crossings++;
      expect(crossings / 2 / 2).to.be.closeTo(200, 1); // zero crossings over 2 s: frequency kept
      // No leading filter delay: the sine starts rising at sample 0 in both.
      const quarter = Math.round(to / 200 / 4);
      expect(out[quarter]!).to.be.greaterThan(8000);
    });
  }

  it('returns the input when the rates match', () => {
    const input = tone(100, 16000, 0.1);
    expect(resampler.resample(input, 16000, 16000)).to.equal(input);
  });
});
