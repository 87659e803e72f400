// @test-tier slow: computes reference spectrograms of 30 s windows
import { expect } from 'chai';
import { MixedRadixFft } from '../../src/asr/features/mixed-radix-fft.js';
import { slaneyMelFilterbank, WhisperLogMel, WHISPER_FRAMES } from '../../src/asr/features/whisper-log-mel.js';

// An independent, deliberately plain reference of Whisper's feature extractor (openai/whisper
// audio.py / transformers WhisperFeatureExtractor): direct DFT per frame in float64, librosa's
// Slaney mel formula written out, the same normalization steps.

function referenceMelFilters(melBins: number): number[][] {
  const sr = 16000;
  const nFft = 400;
  const fSp = 200 / 3;
  const minLogHz = 1000;
  const minLogMel = minLogHz / fSp;
  const logStep = Math.log(6.4) / 27;
  const toMel = (f: number) => (f >= minLogHz ? minLogMel + Math.log(f / minLogHz) / logStep : f / fSp);
  const toHz = (m: number) => (m >= minLogMel ? minLogHz * Math.exp(logStep * (m - minLogMel)) : fSp * m);
  const maxMel = toMel(sr / 2);
  const melF: number[] = [];
  for (let i = 0; i < melBins + 2; i++) melF.push(toHz((i * maxMel) / (melBins + 1)));
  const weights: number[][] = [];
  for (let m = 0; m < melBins; m++) {
    const row: number[] = [];
    for (let k = 0; k <= nFft / 2; k++) {
      const f = (k * sr) / nFft;
      const lower = (f - melF[m]!) / (melF[m + 1]! - melF[m]!);
      const upper = (melF[m + 2]! - f) / (melF[m + 2]! - melF[m + 1]!);
      row.push(Math.max(0, Math.min(lower, upper)) * (2 / (melF[m + 2]! - melF[m]!)));
    }
    weights.push(row);
  }
  return weights;
}

function referenceLogMel(audio: Float32Array, melBins: number): Float64Array {
  const n = 400;
  const hop = 160;
  const padded = new Float64Array(480000);
  for (let i = 0; i < Math.min(audio.length, padded.length); i++) padded[i] = audio[i]!;
  // center=True, pad_mode="reflect"
  const x = new Float64Array(padded.length + n);
  for (let i = 0; i < x.length; i++) {
    let j = i - n / 2;
    if (j < 0) j = -j;
    if (j >= padded.length) j = 2 * (padded.length - 1) - j;
    x[i] = padded[j]!;
  }
  const filters = referenceMelFilters(melBins);
  const out = new Float64Array(melBins * 3000);
  const power = new Float64Array(n / 2 + 1);
  // cos/sin of 2 pi k i / n, tabulated once (a direct DFT, only without recomputing the angles).
  const cos = Float64Array.from({ length: n }, (_, j) => Math.cos((2 * Math.PI * j) / n));
  const sin = Float64Array.from({ length: n }, (_, j) => Math.sin((2 * Math.PI * j) / n));
  const frame = new Float64Array(n);
  for (let t = 0; t < 3000; t++) {
    for (let i = 0; i < n; i++) frame[i] = x[t * hop + i]! * (0.5 - 0.5 * cos[i]!);
    for (let k = 0; k <= n / 2; k++) {
      let re = 0;
      let im = 0;
      for (let i = 0; i < n; i++) {
        const j = (k * i) % n;
        re += frame[i]! * cos[j]!;
        im -= frame[i]! * sin[j]!;
      }
      power[k] = re * re + im * im;
    }
    for (let m = 0; m < melBins; m++) {
      let s = 0;
      for (let k = 0; k <= n / 2; k++) s += filters[m]![k]! * power[k]!;
      out[m * 3000 + t] = Math.log10(Math.max(s, 1e-10));
    }
  }
  let max = -Infinity;
  for (const v of out) max = Math.max(max, v);
  for (let i = 0; i < out.length; i++) out[i] = (Math.max(out[i]!, max - 8) + 4) / 4;
  return out;
}

function speechLike(seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * 16000));
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const t = i / 16000;
    out[i] =
      0.3 * Math.sin(2 * Math.PI * 220 * t) * Math.sin(2 * Math.PI * 3 * t) +
      0.1 * Math.sin(2 * Math.PI * 1760 * t) +
      0.02 * (seed / 2 ** 31 - 0.5);
  }
  return out;
}

describe('Whisper log-mel features (against a direct-DFT reference)', function () {
  this.timeout(120000);

  it('the mixed-radix FFT equals the direct DFT at n = 400 and at a prime length', () => {
    for (const n of [400, 7, 30]) {
      const re = Float64Array.from({ length: n }, (_, i) => Math.sin(i * 1.3) + (i % 5) * 0.1);
      const im = new Float64Array(n);
      const outRe = new Float64Array(n);
      const outIm = new Float64Array(n);
      new MixedRadixFft(n).transform(re, im, outRe, outIm);
      for (let k = 0; k < n; k++) {
        let r = 0;
        let m = 0;
        for (let i = 0; i < n; i++) {
          r += re[i]! * Math.cos((2 * Math.PI * k * i) / n);
          m -= re[i]! * Math.sin((2 * Math.PI * k * i) / n);
        }
        expect(outRe[k]).to.be.closeTo(r, 1e-9);
        expect(outIm[k]).to.be.closeTo(m, 1e-9);
      }
    }
  });

  it('the Slaney filterbank matches the reference formula (80 and 128 bins), each filter has area-normalized weights', () => {
    for (const bins of [80, 128]) {
      const ours = slaneyMelFilterbank(bins, 400, 16000);
      const ref = referenceMelFilters(bins);
      expect(ours).to.have.length(bins);
      for (let m = 0; m < bins; m++) for (let k = 0; k < 201; k++) expect(ours[m]![k]).to.be.closeTo(ref[m]![k]!, 1e-6);
    }
    // librosa.filters.mel(sr=16000, n_fft=400, n_mels=80): the first filter peaks on FFT bin 1 (40 Hz).
    const first = slaneyMelFilterbank(80, 400, 16000)[0]!;
    expect(first.indexOf(Math.max(...first))).to.equal(1);
  });

  for (const [bins, seconds] of [
    [80, 2.5],
    [128, 1],
  ] as const) {
    it(`${bins} mel bins of ${seconds} s of audio equal the reference within 1e-4 (shape [${bins}, 3000], padded to 30 s)`, () => {
      const audio = speechLike(seconds);
      const started = performance.now();
      const ours = new WhisperLogMel(bins).compute(audio);
      const ms = performance.now() - started;
      const ref = referenceLogMel(audio, bins);
      expect(ours.length).to.equal(bins * WHISPER_FRAMES);
      let worst = 0;
      for (let i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i]! - ref[i]!));
      expect(worst).to.be.below(1e-4);
      // The padding: frames after the audio sit at the floor (max - 8 -> (x + 4) / 4).
      let max = -Infinity;
      for (const v of ours) max = Math.max(max, v);
      expect(ours[WHISPER_FRAMES - 1]).to.be.closeTo(max - 2, 1e-5);
      console.log(`      features: ${ms.toFixed(1)} ms for ${seconds} s (${bins} bins)`);
    });
  }

  it('a full 30 s window (no silent frames to skip) and audio longer than 30 s (cut)', () => {
    const audio = speechLike(31);
    const started = performance.now();
    const ours = new WhisperLogMel(80).compute(audio);
    const ms = performance.now() - started;
    const cut = new WhisperLogMel(80).compute(audio.subarray(0, 480000));
    expect(Array.from(ours.subarray(0, 1000))).to.deep.equal(Array.from(cut.subarray(0, 1000)));
    console.log(`      features: ${ms.toFixed(1)} ms for a full 30 s window`);
  });
});
