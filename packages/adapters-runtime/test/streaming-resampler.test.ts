import { expect } from 'chai';
import { StreamingResampler } from '../src/index.js';

const tone = (hz: number, rate: number, seconds: number, amplitude = 16000): Int16Array => {
  const out = new Int16Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
  return out;
};

function resampleInChunks(samples: Int16Array, from: number, to: number, chunk: number): Float32Array {
  const resampler = new StreamingResampler(from, to);
  const parts: number[] = [];
  for (let offset = 0; offset < samples.length; offset += chunk) parts.push(...resampler.process(samples.subarray(offset, offset + chunk)));
  return Float32Array.from(parts);
}

/** RMS amplitude over the middle of a signal, away from the start-up edge. */
const middleRms = (x: Float32Array): number => {
  const part = x.subarray(Math.floor(x.length / 4), Math.floor((3 * x.length) / 4));
  return Math.sqrt(part.reduce((s, v) => s + v * v, 0) / part.length);
};

describe('StreamingResampler', () => {
  for (const from of [8000, 24000, 44100, 48000]) {
    it(`converts ${from} Hz to 16 kHz keeping pitch, level and time alignment`, () => {
      const out = resampleInChunks(tone(440, from, 1), from, 16000, 777);
      // Only the last few filter taps' worth of input is held back.
      expect(out.length).to.be.within(16000 - 64, 16000);
      let crossings = 0;
      for (let i = 1; i < out.length; i++) if (out[i - 1]! < 0 !== out[i]! < 0) crossings++;
      expect(crossings / 2 / (out.length / 16000)).to.be.closeTo(440, 2);
      expect(middleRms(out)).to.be.closeTo(16000 / 32768 / Math.SQRT2, 0.01);
      // No delay: a quarter period in, the sine is at its peak at both rates.
      expect(out[Math.round(16000 / 440 / 4)]!).to.be.closeTo(16000 / 32768, 0.02);
    });
  }

  it('removes content above the new Nyquist frequency instead of aliasing it', () => {
    const out = resampleInChunks(tone(10000, 48000, 1), 48000, 16000, 4800);
    // 10 kHz would fold to 6 kHz at full level without the low-pass filter.
    expect(middleRms(out)).to.be.lessThan(0.005 * (16000 / 32768));
  });

  it('gives the same output whatever the chunk sizes', () => {
    const input = tone(300, 24000, 0.5);
    const whole = resampleInChunks(input, 24000, 16000, input.length);
    expect(resampleInChunks(input, 24000, 16000, 1)).to.deep.equal(whole);
    expect(resampleInChunks(input, 24000, 16000, 513)).to.deep.equal(whole);
  });

  it('end() returns the held-back tail: chunks plus end() cover the whole input, as in one piece', () => {
    for (const [from, to] of [
      [24000, 16000],
      [24000, 48000],
      [16000, 24000],
      [44100, 16000],
    ] as const) {
      const input = tone(300, from, 0.3);
      const resampler = new StreamingResampler(from, to);
      const parts: number[] = [];
      for (let offset = 0; offset < input.length; offset += 1001) parts.push(...resampler.process(input.subarray(offset, offset + 1001)));
      parts.push(...resampler.end());
      expect(parts.length, `${from} -> ${to}`).to.equal(Math.ceil((input.length * to) / from));
      // The tail continues the tone: the last samples are not the filter's silence.
      const last = Float32Array.from(parts.slice(-Math.round(to / 300)));
      expect(Math.max(...last.map(Math.abs))).to.be.greaterThan(0.3);
    }
  });

  it('passes 16 kHz through unchanged, only scaled to [-1, 1)', () => {
    const out = new StreamingResampler(16000, 16000).process(Int16Array.of(0, 16384, -32768));
    expect(Array.from(out)).to.deep.equal([0, 0.5, -1]);
  });
});
