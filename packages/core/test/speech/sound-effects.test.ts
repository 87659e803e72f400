import { expect } from 'chai';
import { renderSoundEffect, SOUND_EFFECTS } from '../../src/speech/sound-effects.js';

function rms(samples: Int16Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / Math.max(1, to - from)) / 32768;
}

function zeroCrossings(samples: Int16Array, from = 0, to = samples.length): number {
  let count = 0;
  for (let i = from + 1; i < to; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) count++;
  return count;
}

describe('renderSoundEffect', () => {
  const required = ['beep', 'chime', 'ding', 'click', 'whoosh', 'pop'];

  it('offers at least the required effects, each with a description', () => {
    for (const name of required) {
      expect(SOUND_EFFECTS).to.have.property(name);
      expect(SOUND_EFFECTS[name]).to.be.a('string').and.not.equal('');
    }
  });

  for (const name of Object.keys(SOUND_EFFECTS)) {
    describe(name, () => {
      const samples = renderSoundEffect(name, 24000)!;

      it('is audible PCM no longer than one second', () => {
        expect(samples).to.be.instanceOf(Int16Array);
        expect(samples.length).to.be.greaterThan(0);
        expect(samples.length).to.be.at.most(24000);
        expect(rms(samples)).to.be.greaterThan(0.01);
      });

      it('peaks at half scale and never clips', () => {
        let peak = 0;
        for (const s of samples) peak = Math.max(peak, Math.abs(s));
        expect(peak).to.be.within(16000, 16400);
      });

      it('starts and ends at silence so it splices cleanly', () => {
        expect(Math.abs(samples[0]!)).to.be.below(200);
        expect(Math.abs(samples[samples.length - 1]!)).to.be.below(200);
      });

      it('is identical on every call', () => {
        expect(renderSoundEffect(name, 24000)).to.deep.equal(samples);
      });

      it('scales its length with the sample rate', () => {
        const at48k = renderSoundEffect(name, 48000)!;
        expect(at48k.length).to.be.closeTo(samples.length * 2, 2);
        const at8k = renderSoundEffect(name, 8000)!;
        expect(at8k.length).to.be.closeTo(samples.length / 3, 2);
        expect(rms(at8k)).to.be.greaterThan(0.01);
      });
    });
  }

  it('returns null for an unknown effect', () => {
    expect(renderSoundEffect('explosion', 24000)).to.equal(null);
    expect(renderSoundEffect('', 24000)).to.equal(null);
    expect(renderSoundEffect('constructor', 24000)).to.equal(null);
    expect(renderSoundEffect('toString', 24000)).to.equal(null);
  });

  it('accepts names in any case and with surrounding spaces', () => {
    expect(renderSoundEffect(' BEEP ', 24000)).to.deep.equal(renderSoundEffect('beep', 24000));
  });

  it('rejects a sample rate that is not usable', () => {
    expect(() => renderSoundEffect('beep', 0)).to.throw(RangeError);
    expect(() => renderSoundEffect('beep', Number.NaN)).to.throw(RangeError);
  });

  it('beep is an 880 Hz tone of about 200 ms', () => {
    const samples = renderSoundEffect('beep', 24000)!;
    expect(samples.length).to.equal(4800);
    const hz = zeroCrossings(samples) / 2 / 0.2;
    expect(hz).to.be.closeTo(880, 15);
  });

  it('click is very short and pop is short', () => {
    expect(renderSoundEffect('click', 24000)!.length).to.be.below(24000 * 0.03);
    expect(renderSoundEffect('pop', 24000)!.length).to.be.below(24000 * 0.15);
  });

  it('chime rings out: it is louder at the start than at the end', () => {
    const samples = renderSoundEffect('chime', 24000)!;
    const quarter = Math.floor(samples.length / 4);
    expect(rms(samples, 0, quarter)).to.be.greaterThan(rms(samples, 3 * quarter) * 3);
  });

  it('whoosh sweeps upward: more zero crossings in its second half', () => {
    const samples = renderSoundEffect('whoosh', 24000)!;
    const third = Math.floor(samples.length / 3);
    expect(zeroCrossings(samples, 2 * third)).to.be.greaterThan(zeroCrossings(samples, 0, third) * 2);
  });

  it('pop falls in pitch', () => {
    const samples = renderSoundEffect('pop', 48000)!;
    const half = Math.floor(samples.length / 2);
    expect(zeroCrossings(samples, 0, half)).to.be.greaterThan(zeroCrossings(samples, half));
  });

  it('different effects sound different', () => {
    const lengths = new Set(required.map((name) => renderSoundEffect(name, 24000)!.length));
    expect(renderSoundEffect('chime', 24000)).not.to.deep.equal(renderSoundEffect('ding', 24000));
    expect(lengths.size).to.be.greaterThan(3);
  });
});
