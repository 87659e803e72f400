import { MixedRadixFft } from './mixed-radix-fft.js';

/** Whisper's feature extractor settings (the same for every Whisper size; large-v3 has 128 mel bins). */
export const WHISPER_FEATURES = { sampleRate: 16000, nFft: 400, hop: 160, chunkSeconds: 30 } as const;
export const WHISPER_CHUNK_SAMPLES = WHISPER_FEATURES.sampleRate * WHISPER_FEATURES.chunkSeconds;
/** Frames in one 30 s chunk: the encoder's fixed input width. */
export const WHISPER_FRAMES = WHISPER_CHUNK_SAMPLES / WHISPER_FEATURES.hop;

/** Hz to mel on the Slaney scale (linear below 1 kHz, logarithmic above), as librosa's default. */
function hzToMel(hz: number): number {
  const linear = hz / (200 / 3);
  return hz < 1000 ? linear : 15 + Math.log(hz / 1000) / (Math.log(6.4) / 27);
}

function melToHz(mel: number): number {
  return mel < 15 ? mel * (200 / 3) : 1000 * Math.exp((Math.log(6.4) / 27) * (mel - 15));
}

/**
 * The Slaney-normalized triangular mel filterbank (librosa `mel(sr, n_fft, n_mels)`, htk=False,
 * norm='slaney', 0 to sr/2) that Whisper's feature extractor uses: `melBins` rows of nFft/2+1 weights.
 */
export function slaneyMelFilterbank(melBins: number, nFft: number, sampleRate: number): Float32Array[] {
  const bins = nFft / 2 + 1;
  const fftHz = Array.from({ length: bins }, (_, i) => (i * sampleRate) / nFft);
  const top = hzToMel(sampleRate / 2);
  const edges = Array.from({ length: melBins + 2 }, (_, i) => melToHz((top * i) / (melBins + 1)));
  return Array.from({ length: melBins }, (_, m) => {
    const [lo, mid, hi] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    const norm = 2 / (hi - lo);
    const row = new Float32Array(bins);
    for (let b = 0; b < bins; b++) {
      const f = fftHz[b]!;
      row[b] = Math.max(0, Math.min((f - lo) / (mid - lo), (hi - f) / (hi - mid))) * norm;
    }
    return row;
  });
}

/**
 * Whisper's log-mel spectrogram of 16 kHz audio as the encoder takes it: the audio padded with
 * zeros (or cut) to the window (30 s; models built on Whisper's encoder may take a shorter one:
 * Smart Turn's is 8 s), a centred STFT (reflect padding, periodic Hann window of 400, hop 160),
 * power spectrum, Slaney mel filterbank, log10 floored at 1e-10, clamped to (max - 8), then
 * (x + 4) / 4. Returns [melBins x frames] row-major (frames: 3000 for 30 s), ready for
 * `input_features` [1, melBins, frames].
 */
export class WhisperLogMel {
  private readonly fft = new MixedRadixFft(WHISPER_FEATURES.nFft);
  private readonly window: Float64Array;
  private readonly filters: Float32Array[];
  /** Each filter's non-zero bins [first, last): the triangles are narrow, most weights are 0. */
  private readonly spans: [number, number][];

  /** Samples of the window the audio is padded or cut to. */
  readonly windowSamples: number;
  /** Frames of the output (the window's samples / hop). */
  readonly frames: number;

  constructor(
    readonly melBins: number,
    windowSeconds: number = WHISPER_FEATURES.chunkSeconds,
  ) {
    this.windowSamples = WHISPER_FEATURES.sampleRate * windowSeconds;
    this.frames = this.windowSamples / WHISPER_FEATURES.hop;
    const n = WHISPER_FEATURES.nFft;
    this.window = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
    this.filters = slaneyMelFilterbank(melBins, n, WHISPER_FEATURES.sampleRate);
    this.spans = this.filters.map((row) => {
      const first = row.findIndex((w) => w > 0);
      let last = row.length;
      while (last > 0 && !(row[last - 1]! > 0)) last--;
      return first < 0 ? [0, 0] : [first, last];
    });
  }

  compute(samples: Float32Array): Float32Array {
    const { nFft, hop } = WHISPER_FEATURES;
    const half = nFft / 2;
    const bins = half + 1;
    const frames = this.frames;
    const audio = new Float32Array(this.windowSamples);
    audio.set(samples.subarray(0, this.windowSamples));
    // Frames past the end of the speech see only zeros (and their reflection): their power is 0.
    const lastSample = Math.min(samples.length, this.windowSamples);
    const reflect = (i: number): number => audio[i < 0 ? -i : i >= audio.length ? 2 * (audio.length - 1) - i : i]!;
    const out = new Float32Array(this.melBins * frames);
    const re = new Float64Array(nFft);
    const im = new Float64Array(nFft);
    const specRe = new Float64Array(nFft);
    const specIm = new Float64Array(nFft);
    const power = new Float64Array(bins);
    let max = -Infinity;
    for (let frame = 0; frame < frames; frame++) {
      const start = frame * hop - half;
      if (start >= lastSample && start + nFft <= audio.length) {
        // Only padding zeros under the window: every mel energy is 0, floored to 1e-10.
        for (let m = 0; m < this.melBins; m++) out[m * frames + frame] = -10;
        max = Math.max(max, -10);
        continue;
      }
      {
        for (let i = 0; i < nFft; i++) {
          re[i] = reflect(start + i) * this.window[i]!;
          im[i] = 0;
        }
        this.fft.transform(re, im, specRe, specIm);
        for (let b = 0; b < bins; b++) power[b] = specRe[b]! * specRe[b]! + specIm[b]! * specIm[b]!;
      }
      for (let m = 0; m < this.melBins; m++) {
        const row = this.filters[m]!;
        const [first, last] = this.spans[m]!;
        let sum = 0;
        for (let b = first; b < last; b++) sum += row[b]! * power[b]!;
        const value = Math.log10(Math.max(sum, 1e-10));
        out[m * frames + frame] = value;
        if (value > max) max = value;
      }
    }
    const floor = max - 8;
    for (let i = 0; i < out.length; i++) out[i] = (Math.max(out[i]!, floor) + 4) / 4;
    return out;
  }
}
