import { expect } from 'chai';
import { VOICE_PROFILE_VERSION, type VoiceProfile } from '@svc/core';
import { RubberbandVoiceConverter } from '../src/index.js';
import { loadRubberband } from '../src/rubberband-module.js';
import { RubberbandShifter } from '../src/rubberband-shifter.js';
import { trackPitch } from '../src/dsp/pitch.js';
import { floatToInt16, int16ToFloat, median, resample } from '../src/dsp/signal.js';
import { chunked, concat, harmonicTone } from './test-signals.js';

const pitchOf = (x: Float32Array, sampleRate: number) =>
  median(
    trackPitch(resample(x, sampleRate, 16000), { sampleRate: 16000 })
      .filter((f) => f.f0 > 0)
      .map((f) => f.f0),
  );

function profile(targetF0: number, baseF0: number, formantScale = 1): VoiceProfile {
  const speaker = (f0: number, scale: number) => ({
    f0MedianHz: f0,
    f0LowHz: f0,
    f0HighHz: f0,
    formantsHz: [500, 1500, 2500],
    formantScale: scale,
    spectralEnvelopeDb: [0, 0, 0],
    envelopeBandsHz: [200, 1000, 4000],
    mfccMean: [],
    mfccStd: [],
    syllableRateFromEnergy: 4,
    syllableRateFromText: null,
    voicedSeconds: 1,
  });
  return {
    version: VOICE_PROFILE_VERSION,
    analyzer: 'test',
    speaker: speaker(targetF0, formantScale),
    base: { preset: 'slt', speaker: speaker(baseF0, 1) },
  };
}

describe('Rubber Band conversion (real WASM engine)', function () {
  this.timeout(30000);

  it('shifts pitch by the requested ratio and preserves the duration exactly, chunk by chunk', async () => {
    const api = await loadRubberband();
    const x = harmonicTone(150, 3, 24000);
    for (const sizes of [[x.length], [1, 777, 5000, 24000, 3, 12345], [480]]) {
      const shifter = new RubberbandShifter(api, 24000, 1.5, 1);
      const out = concat([...chunked(x, sizes).map((c) => shifter.process(c)), shifter.flush()]);
      expect(out.length).to.equal(x.length);
      expect(pitchOf(out.subarray(4800, out.length - 4800), 24000)).to.be.closeTo(225, 225 * 0.02);
    }
  });

  it('never hands out more output than input so far (no look-ahead is invented)', async () => {
    const api = await loadRubberband();
    const shifter = new RubberbandShifter(api, 24000, 0.8, 1.1);
    let input = 0;
    let output = 0;
    for (const c of chunked(harmonicTone(200, 2, 24000))) {
      input += c.length;
      output += shifter.process(c).length;
      expect(output).to.be.at.most(input);
    }
    output += shifter.flush().length;
    expect(output).to.equal(input);
  });

  it('the converter keeps the length of streamed speech, returns the first chunk early, and moves F0 to the target', async () => {
    const converter = await RubberbandVoiceConverter.create();
    const x = floatToInt16(harmonicTone(170, 4, 24000));
    const conversion = converter.start(profile(255, 170), 24000);
    const first = await conversion.process(x.subarray(0, 48000));
    // Only 0.25 s of the first 2 s chunk is converted before returning: streamed speech starts early.
    expect(first.length)
      .to.be.greaterThan(0)
      .and.at.most(0.25 * 24000);
    const second = await conversion.process(x.subarray(48000));
    const tail = await conversion.flush();
    const out = new Int16Array(first.length + second.length + tail.length);
    out.set(first, 0);
    out.set(second, first.length);
    out.set(tail, first.length + second.length);
    expect(out.length).to.equal(x.length);
    expect(pitchOf(int16ToFloat(out).subarray(4800, out.length - 4800), 24000)).to.be.closeTo(255, 255 * 0.02);
  });

  it('converts many sentence-sized chunks without losing or adding a sample, whatever their sizes', async () => {
    const converter = await RubberbandVoiceConverter.create();
    const x = floatToInt16(harmonicTone(120, 12, 24000));
    const conversion = converter.start(profile(100, 120, 0.95), 24000);
    let out = 0;
    let offset = 0;
    for (const seconds of [0.3, 2.5, 0.1, 4, 1, 3.1, 1]) {
      const n = Math.round(seconds * 24000);
      out += (await conversion.process(x.subarray(offset, offset + n))).length;
      offset += n;
    }
    out += (await conversion.flush()).length;
    expect(offset).to.equal(x.length);
    expect(out).to.equal(x.length);
  });

  it('an identity profile leaves speech (nearly) unchanged', async () => {
    const converter = await RubberbandVoiceConverter.create();
    const x = floatToInt16(harmonicTone(170, 1, 24000));
    const conversion = converter.start(profile(170, 170), 24000);
    const out = concat([int16ToFloat(await conversion.process(x)), int16ToFloat(await conversion.flush())]);
    expect(out.length).to.equal(x.length);
    let err = 0;
    const xf = int16ToFloat(x);
    for (let i = 0; i < x.length; i++) err = Math.max(err, Math.abs(out[i]! - xf[i]!));
    expect(err).to.be.lessThan(0.02);
  });
});
