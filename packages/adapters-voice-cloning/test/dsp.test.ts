import { expect } from 'chai';
import { trackPitch } from '../src/dsp/pitch.js';
import { median, resample } from '../src/dsp/signal.js';
import { countTextSyllables } from '../src/dsp/syllables.js';
import { designFir, gainAt, StreamingFir } from '../src/fir-equalizer.js';
import { Fft } from '../src/dsp/fft.js';
import { chunked, concat, harmonicTone } from './test-signals.js';

describe('voice-cloning DSP building blocks', () => {
  it('YIN finds the F0 of harmonic tones within 1 %', () => {
    for (const f0 of [85, 120, 210, 320]) {
      const frames = trackPitch(harmonicTone(f0, 1, 16000), { sampleRate: 16000 });
      const voiced = frames.filter((f) => f.f0 > 0).map((f) => f.f0);
      expect(voiced.length).to.be.greaterThan(frames.length * 0.9);
      expect(median(voiced)).to.be.closeTo(f0, f0 * 0.01);
    }
  });

  it('YIN reports white noise as unvoiced', () => {
    let seed = 1;
    const noise = new Float32Array(16000).map(() => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5) * 0.5);
    const frames = trackPitch(noise, { sampleRate: 16000 });
    expect(frames.filter((f) => f.f0 > 0).length).to.be.lessThan(frames.length * 0.1);
  });

  it('resampling keeps a tone and its level (24 kHz -> 16 kHz, 22.05 kHz -> 16 kHz)', () => {
    for (const from of [24000, 22050, 8000]) {
      const x = new Float32Array(from).map((_, i) => 0.5 * Math.sin((2 * Math.PI * 1000 * i) / from));
      const y = resample(x, from, 16000);
      expect(y.length).to.equal(16000);
      let err = 0;
      for (let n = 500; n < y.length - 500; n++) err = Math.max(err, Math.abs(y[n]! - 0.5 * Math.sin((2 * Math.PI * 1000 * n) / 16000)));
      expect(err).to.be.lessThan(0.01);
    }
  });

  it('a streaming FIR gives the same samples however the input is chunked, and keeps the length', () => {
    const x = harmonicTone(140, 2, 24000);
    const taps = designFir({ frequenciesHz: [100, 1000, 4000], gainsDb: [-6, 6, 0] }, 24000);
    const whole = new StreamingFir(taps);
    const reference = concat([whole.process(x), whole.flush()]);
    const streamed = new StreamingFir(taps);
    const parts = chunked(x).map((c) => streamed.process(c));
    const out = concat([...parts, streamed.flush()]);
    expect(out.length).to.equal(x.length);
    expect(reference.length).to.equal(x.length);
    let err = 0;
    for (let i = 0; i < x.length; i++) err = Math.max(err, Math.abs(out[i]! - reference[i]!));
    expect(err).to.be.lessThan(1e-5);
  });

  it('the designed FIR follows its gain curve', () => {
    const curve = { frequenciesHz: [200, 500, 1000, 2000, 4000], gainsDb: [0, -6, 0, 8, 0] };
    const taps = designFir(curve, 24000);
    const fft = new Fft(4096);
    const power = fft.powerSpectrum(taps);
    for (const hz of [500, 2000, 4000]) {
      const measured = 10 * Math.log10(power[Math.round((hz * 4096) / 24000)]!);
      expect(measured).to.be.closeTo(gainAt(curve, hz), 1.5);
    }
    // A flat curve is (nearly) the identity.
    const flat = new StreamingFir(designFir({ frequenciesHz: [1000], gainsDb: [0] }, 24000));
    const x = harmonicTone(200, 0.5, 24000);
    const y = concat([flat.process(x), flat.flush()]);
    let err = 0;
    for (let i = 0; i < x.length; i++) err = Math.max(err, Math.abs(y[i]! - x[i]!));
    expect(err).to.be.lessThan(0.01);
  });

  it('counts syllables of English text, and declines non-Latin scripts', () => {
    expect(countTextSyllables('The rainbow is a division of white light')).to.be.within(10, 12);
    expect(countTextSyllables('he was not an ill disposed young man')).to.be.within(8, 10);
    expect(countTextSyllables('你好世界，今天天气很好')).to.equal(null);
    expect(countTextSyllables('...')).to.equal(null);
  });
});
