// @test-tier slow: renders and analyses whole clips of avatar video
import { expect } from 'chai';
import { NEUTRAL_PROSODY, type PcmAudio, type PreparedAvatar, type WordTiming } from '@svc/core';
import { FfmpegVideoEncoder, runFfmpeg } from '@svc/adapters-media';
import { FliteSpeechSynthesizer } from '@svc/adapters-speech-synthesis';
import { LandmarkAvatarRenderer } from '../src/index.js';
import { collect } from '@svc/adapters-testing';
import {
  amplitudeEnvelope,
  collectFrames,
  concatAudio,
  frameLandmarks,
  librivoxClip,
  median,
  mouthAperture,
  peakCorrelation,
  rotate,
  samplePhoto,
} from './avatar-measures.js';

const FPS = 25;
/** +/- 300 ms of lag searched, in frames. */
const MAX_LAG = Math.round(0.3 * FPS);
/** The "clearly out of time" controls: the audio envelope moved by 1.2, 1.6 and 2.0 s. */
const SHIFTS = [30, 40, 50];

interface SyncReport {
  peak: { r: number; lag: number };
  shifted: number;
  silence: number;
  speech: number;
}

/** Renders, re-detects the landmarks on every output frame and correlates the mouth with the sound. */
async function measureSync(avatar: PreparedAvatar, audio: PcmAudio, silent: [number, number], words?: WordTiming[]): Promise<SyncReport> {
  const frames = await collectFrames(avatar.render({ audio, words }));
  expect(frames.length).to.equal(Math.ceil((audio.samples.length / audio.sampleRate) * FPS));
  const aperture = (await frameLandmarks(frames)).map(mouthAperture);
  const envelope = amplitudeEnvelope(audio, FPS, frames.length);
  const peak = peakCorrelation(aperture, envelope, MAX_LAG);
  const shifted = Math.max(...SHIFTS.map((s) => peakCorrelation(aperture, rotate(envelope, s), MAX_LAG).r));
  // the silent stretch, less 100 ms at each end for the lips to meet
  const inSilence = aperture.slice(Math.ceil((silent[0] + 0.1) * FPS), Math.floor((silent[1] - 0.1) * FPS));
  const speaking = aperture.filter((_, k) => envelope[k]! > 0.1 * Math.max(...envelope));
  return { peak, shifted, silence: Math.max(...inSilence), speech: sortedAt(speaking, 0.9) };
}

function sortedAt(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(q * (s.length - 1))]!;
}

function expectInSync(report: SyncReport, label: string): void {
  const msg = `${label}: ${JSON.stringify(report)}`;
  // SVC_AVATAR_REPORT=1 prints the figures (for docs/benchmarks.md)
  if (process.env.SVC_AVATAR_REPORT) console.log(`      ${msg}`);
  expect(report.peak.r, msg).to.be.at.least(0.5);
  expect(Math.abs(report.peak.lag) / FPS, msg).to.be.at.most(0.08);
  expect(report.peak.r - report.shifted, msg).to.be.at.least(0.25);
  // and it moves visibly: the open mouth's aperture well above the closed one's
  expect(report.speech - report.silence, msg).to.be.at.least(0.04);
}

describe('LandmarkAvatarRenderer lip-sync, measured on its output (real face-api WASM, real speech)', function () {
  this.timeout(180000);
  const renderer = new LandmarkAvatarRenderer();
  after(async () => {
    await renderer.close();
  });

  // "A" (2.99 s) + 1.2 s of silence + "B" (first 2 s): real LibriVox speech, 16 kHz
  const a = librivoxClip('0880');
  const b = librivoxClip('0920');
  const human = concatAudio(16000, a.samples, 1.2, b.samples.subarray(0, 32000));
  const humanSilence: [number, number] = [a.samples.length / 16000, a.samples.length / 16000 + 1.2];

  it('audio-driven, closed-mouth photo (sample3): the mouth follows the speech at zero lag and shuts in the pause', async () => {
    const avatar = await renderer.prepare(samplePhoto(3), '640x640');
    const report = await measureSync(avatar, human, humanSilence);
    expectInSync(report, 'sample3 / librivox');
    expect(report.silence, JSON.stringify(report)).to.be.at.most(0.07); // a closed mouth reads 0.036-0.055
    expect(report.speech, JSON.stringify(report)).to.be.at.least(0.12);
  });

  it('audio-driven, laughing open-mouth photo (sample1): the mouth is closed in the pause and opens with the syllables', async () => {
    const avatar = await renderer.prepare(samplePhoto(1), '640x640');
    const report = await measureSync(avatar, human, humanSilence);
    expectInSync(report, 'sample1 / librivox');
    expect(report.silence, JSON.stringify(report)).to.be.at.most(0.65 * report.speech);
  });

  it('word-timing-driven (flite speech + its word timings, as input_tts gives them), sample6 at 640x480', async () => {
    const flite = await FliteSpeechSynthesizer.create({ poolSize: 1 });
    try {
      const voice = flite.voices().find((v) => v.name === 'slt')!;
      const say = (text: string) => flite.synthesize({ text, voice, prosody: NEUTRAL_PROSODY, sampleRate: 24000, wordTimings: true });
      const first = await say('Good morning, and welcome to the video service.');
      const second = await say('Please watch my mouth move.');
      const offset = first.samples.length / 24000 + 1.2;
      const audio = concatAudio(24000, first.samples, 1.2, second.samples);
      const words = [...first.words, ...second.words.map((w) => ({ ...w, start: w.start + offset, end: w.end + offset }))];
      expect(words.length).to.be.at.least(10);
      const avatar = await renderer.prepare(samplePhoto(6), '640x480');
      const report = await measureSync(avatar, audio, [first.samples.length / 24000, offset], words);
      expectInSync(report, 'sample6 / flite words');
      expect(report.silence, JSON.stringify(report)).to.be.at.most(0.65 * report.speech);
    } finally {
      await flite.close();
    }
  });

  it('end to end: measured on frames decoded back from the encoded fMP4 (sample5, 480x640)', async () => {
    const avatar = await renderer.prepare(samplePhoto(5), '480x640');
    const mp4 = await collect(
      new FfmpegVideoEncoder().encodeFragmentedMp4(avatar.render({ audio: human }), human, { fps: FPS, width: 480, height: 640 }),
    );
    const raw = Buffer.from(
      await collect(
        runFfmpeg({
          args: ['-i', 'pipe:0', '-map', '0:v', '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
          stdin: (async function* () {
            yield mp4;
          })(),
        }),
      ),
    );
    const size = 480 * 640 * 3;
    const frames = Array.from({ length: raw.length / size }, (_, k) => ({
      data: raw.subarray(k * size, (k + 1) * size),
      width: 480,
      height: 640,
    }));
    expect(frames.length).to.equal(Math.ceil((human.samples.length / 16000) * FPS));
    const aperture = (await frameLandmarks(frames)).map(mouthAperture);
    const envelope = amplitudeEnvelope(human, FPS, frames.length);
    const peak = peakCorrelation(aperture, envelope, MAX_LAG);
    const shifted = Math.max(...SHIFTS.map((s) => peakCorrelation(aperture, rotate(envelope, s), MAX_LAG).r));
    const msg = JSON.stringify({ peak, shifted });
    expect(peak.r, msg).to.be.at.least(0.5);
    expect(Math.abs(peak.lag) / FPS, msg).to.be.at.most(0.08);
    expect(peak.r - shifted, msg).to.be.at.least(0.25);
  });

  it('a mouth that does not move fails the measure (the test can fail)', async () => {
    const avatar = await renderer.prepare(samplePhoto(3), '640x640');
    // silent driving audio: a still mouth, measured against the real speech envelope
    const still = await collectFrames(avatar.render({ audio: { samples: new Int16Array(human.samples.length), sampleRate: 16000 } }));
    const aperture = (await frameLandmarks(still)).map(mouthAperture);
    const envelope = amplitudeEnvelope(human, FPS, still.length);
    const speaking = aperture.filter((_, k) => envelope[k]! > 0.1 * Math.max(...envelope));
    const report: SyncReport = {
      peak: peakCorrelation(aperture, envelope, MAX_LAG),
      shifted: Math.max(...SHIFTS.map((s) => peakCorrelation(aperture, rotate(envelope, s), MAX_LAG).r)),
      silence: Math.max(...aperture.slice(Math.ceil((humanSilence[0] + 0.1) * FPS), Math.floor((humanSilence[1] - 0.1) * FPS))),
      speech: sortedAt(speaking, 0.9),
    };
    expect(() => expectInSync(report, 'still mouth')).to.throw();
    expect(median(aperture)).to.be.below(0.07);
  });
});
