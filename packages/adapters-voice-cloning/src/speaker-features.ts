import type { SpeakerFeatures } from '@svc/core';
import { ReferenceAudioTooShortError } from '@svc/core';
import { envelopePeaks, lpcCoefficients } from './dsp/lpc.js';
import { logMelFrames, mfccFromLogMel } from './dsp/mel.js';
import { trackPitch } from './dsp/pitch.js';
import { hamming, median, percentile, resample } from './dsp/signal.js';
import { countEnergyNuclei, countTextSyllables } from './dsp/syllables.js';

/** Every clip is measured at this rate, so measures of different sources compare. */
export const ANALYSIS_SAMPLE_RATE = 16000;
/** Pitch is tracked on a 2x decimated copy: 4x less work, and F0 needs no more than 4 kHz of band. */
const PITCH_SAMPLE_RATE = 8000;
export const MFCC_COUNT = 12;
/** Formants of a neutral (uniform) 17.5 cm vocal tract: the reference of formantScale. */
const NEUTRAL_FORMANTS_HZ = [500, 1500, 2500];
/**
 * The vocal-tract scale rests on F2 and F3 only: F1 depends mostly on the vowel, and above
 * ~200 Hz of F0 the all-pole fit often locks onto a harmonic instead of F1.
 */
const SCALE_FORMANTS = [1, 2];
/** Frames more than this far below the loudest frame are pauses or background, not speech. */
const SPEECH_RANGE_DB = 35;
const HOP_SECONDS = 0.01;
/** 2 + sample rate in kHz: one pole pair per kHz of band (formants) plus two for the glottal tilt. */
const LPC_ORDER = 18;
/**
 * F1 must clear the first harmonic: above ~200 Hz of F0 the all-pole fit otherwise locks onto a
 * harmonic and every formant label slides up by one (a pitch rise then reads as a shorter tract).
 */
const F1_MIN_F0_RATIO = 1.3;
/** Upper bounds of F1, F2, F3: wide enough for short vocal tracts (F3 can pass 4 kHz). */
const FORMANT_MAX_HZ = [1200, 3500, 4800];

export interface MeasureOptions {
  minVoicedSeconds?: number;
  /** Request field named in errors. */
  param?: string;
  /** Share of the transcript spoken in `samples` (1 unless the clip was cut). */
  transcriptFraction?: number;
}

/**
 * Measures a speaker from speech: pitch level and range (YIN), vocal-tract scale (LPC formants),
 * long-term spectral envelope and MFCC statistics (log-mel frames), and speaking rate.
 */
export function measureSpeaker(
  samples: Float32Array,
  sampleRate: number,
  transcript: string | null,
  options: MeasureOptions = {},
): SpeakerFeatures {
  const x = resample(samples, sampleRate, ANALYSIS_SAMPLE_RATE);
  const sr = ANALYSIS_SAMPLE_RATE;
  const mel = logMelFrames(x, { sampleRate: sr, hopSeconds: HOP_SECONDS });
  const pitch = trackPitch(resample(x, sr, PITCH_SAMPLE_RATE), { sampleRate: PITCH_SAMPLE_RATE, hopSeconds: HOP_SECONDS });
  const frames = Math.min(mel.logMel.length, pitch.length);

  // Speech frames: within SPEECH_RANGE_DB of the loudest (by total mel energy).
  const energy = mel.logMel.slice(0, frames).map(totalDb);
  const loudest = percentile(energy, 0.99);
  const floor = loudest - SPEECH_RANGE_DB;
  const speech = energy.map((e) => e > floor);
  const voiced = pitch.slice(0, frames).map((p, i) => p.f0 > 0 && speech[i]!);
  const voicedF0 = cleanPitch(
    pitch
      .slice(0, frames)
      .filter((_, i) => voiced[i])
      .map((p) => p.f0),
  );
  const voicedSeconds = voicedF0.length * HOP_SECONDS;
  const minVoiced = options.minVoicedSeconds ?? 0.5;
  if (voicedSeconds < minVoiced) {
    const param = options.param ?? 'ref_audio';
    throw new ReferenceAudioTooShortError(
      `'${param}' holds ${voicedSeconds.toFixed(2)} s of voiced speech; at least ${minVoiced} s is needed to measure a voice.`,
      param,
    );
  }

  const speechFrames = mel.logMel.filter((_, i) => i < frames && speech[i]);
  const envelope = meanVector(speechFrames);
  const envelopeMean = envelope.reduce((a, b) => a + b, 0) / envelope.length;
  const mfccs = speechFrames.map((f) => mfccFromLogMel(f, MFCC_COUNT));
  const formants = medianFormants(x, sr, pitch, voiced);
  const speechSeconds = speech.filter(Boolean).length * HOP_SECONDS;
  const nuclei = countEnergyNuclei(speechBandEnergy(mel.logMel.slice(0, frames), mel.centersHz), voiced, floor + 10);
  const textSyllables = transcript ? countTextSyllables(transcript) : null;
  const spokenSyllables = textSyllables === null ? null : textSyllables * (options.transcriptFraction ?? 1);

  return {
    f0MedianHz: round(median(voicedF0), 1),
    f0LowHz: round(percentile(voicedF0, 0.1), 1),
    f0HighHz: round(percentile(voicedF0, 0.9), 1),
    formantsHz: formants.map((f) => round(f, 0)),
    formantScale: round(geometricMean(SCALE_FORMANTS.map((i) => formants[i]! / NEUTRAL_FORMANTS_HZ[i]!)), 4),
    spectralEnvelopeDb: envelope.map((v) => round(v - envelopeMean, 2)),
    envelopeBandsHz: mel.centersHz.map((c) => round(c, 0)),
    mfccMean: meanVector(mfccs).map((v) => round(v, 3)),
    mfccStd: stdVector(mfccs).map((v) => round(v, 3)),
    syllableRateFromEnergy: round(nuclei / speechSeconds, 3),
    syllableRateFromText: spokenSyllables ? round(spokenSyllables / speechSeconds, 3) : null,
    voicedSeconds: round(voicedSeconds, 2),
  };
}

/** Drops octave errors: values more than an octave away from the median. */
function cleanPitch(f0: number[]): number[] {
  if (f0.length === 0) return f0;
  const m = median(f0);
  return f0.filter((f) => f > m / 1.9 && f < m * 1.9);
}

/** Median F1, F2, F3 over voiced frames, from the peaks of the LPC envelope of pre-emphasised 25 ms frames. */
function medianFormants(x: Float32Array, sr: number, pitch: { time: number; f0: number }[], voiced: boolean[]): number[] {
  const length = Math.round(sr * 0.025);
  const window = hamming(length);
  const frame = new Float64Array(length);
  const tracks: number[][] = [[], [], []];
  for (let i = 0; i < voiced.length; i++) {
    if (!voiced[i]) continue;
    const start = Math.round(pitch[i]!.time * sr - length / 2);
    if (start < 1 || start + length > x.length) continue;
    for (let j = 0; j < length; j++) frame[j] = (x[start + j]! - 0.97 * x[start + j - 1]!) * window[j]!;
    const a = lpcCoefficients(frame, LPC_ORDER);
    if (!a) continue;
    const peaks = envelopePeaks(a, sr, 200, FORMANT_MAX_HZ[2]!);
    const f1 = peaks.find((f) => f < FORMANT_MAX_HZ[0]! && f > F1_MIN_F0_RATIO * pitch[i]!.f0);
    const f2 = f1 === undefined ? undefined : peaks.find((f) => f > f1 + 200 && f < FORMANT_MAX_HZ[1]!);
    const f3 = f2 === undefined ? undefined : peaks.find((f) => f > f2 + 200 && f < FORMANT_MAX_HZ[2]!);
    if (f1 === undefined || f2 === undefined || f3 === undefined) continue;
    tracks[0]!.push(f1);
    tracks[1]!.push(f2);
    tracks[2]!.push(f3);
  }
  if (tracks[0]!.length === 0) return [...NEUTRAL_FORMANTS_HZ];
  return tracks.map(median);
}

/** Energy of the 300-2500 Hz bands (vowel nuclei stand out there), dB per frame. */
function speechBandEnergy(logMel: Float64Array[], centersHz: number[]): number[] {
  const bands = centersHz.map((c, i) => (c >= 300 && c <= 2500 ? i : -1)).filter((i) => i >= 0);
  return logMel.map((f) => 10 * Math.log10(bands.reduce((sum, b) => sum + 10 ** (f[b]! / 10), 0) + 1e-12));
}

function totalDb(frame: Float64Array): number {
  let sum = 0;
  for (let b = 0; b < frame.length; b++) sum += 10 ** (frame[b]! / 10);
  return 10 * Math.log10(sum + 1e-12);
}

function meanVector(rows: ArrayLike<number>[]): number[] {
  const n = rows[0]?.length ?? 0;
  const out = new Array<number>(n).fill(0);
  for (const r of rows) for (let i = 0; i < n; i++) out[i]! += r[i]! / rows.length;
  return out;
}

function stdVector(rows: ArrayLike<number>[]): number[] {
  const mean = meanVector(rows);
  const out = new Array<number>(mean.length).fill(0);
  for (const r of rows) for (let i = 0; i < mean.length; i++) out[i]! += (r[i]! - mean[i]!) ** 2 / rows.length;
  return out.map(Math.sqrt);
}

function geometricMean(values: number[]): number {
  return Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);
}

const round = (v: number, digits: number): number => {
  const p = 10 ** digits;
  return Math.round(v * p) / p;
};
