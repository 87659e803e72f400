import { expect } from 'chai';
import { SileroVoiceActivityDetector } from '../../src/index.js';
import { runFfmpeg } from '@svc/adapters-media';
import { concat, librivoxClip, librivoxClips, silenceMs, speechEdgesMs, whiteNoise } from '@svc/adapters-testing';
import { detect, segments } from './vad-harness.js';

/**
 * How far the reported edges may be from the energy edges of the clip. Starts land within a frame or
 * two. Ends land 100-200 ms late on most clips (Silero's probability decays over a few frames after
 * the last word) and 324 ms late on 0890, where a breath ~250 ms after the last word scores 0.76 and
 * keeps the turn open: 350 ms covers that, with speech never cut short (END_EARLY_MS).
 */
const START_TOLERANCE_MS = 150;
const END_TOLERANCE_MS = 350;
const END_EARLY_MS = 50;

async function ffmpegResample(samples: Int16Array, from: number, to: number): Promise<Int16Array> {
  const pcm = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  const args = ['-f', 's16le', '-ar', String(from), '-ac', '1', '-i', 'pipe:3', '-f', 's16le', '-ar', String(to), 'pipe:1'];
  const parts: Uint8Array[] = [];
  for await (const part of runFfmpeg({ args, pipes: [pcm] })) parts.push(part);
  return new Int16Array(Uint8Array.from(Buffer.concat(parts)).buffer);
}

describe('SileroVoiceActivityDetector: boundaries on real speech', () => {
  let detector: SileroVoiceActivityDetector;
  before(async () => {
    detector = await SileroVoiceActivityDetector.create();
  });
  after(async () => {
    await detector.close();
  });

  for (const clip of librivoxClips()) {
    it(`finds one segment at the speech edges of ${clip.id} padded with 1 s of silence`, async () => {
      const edges = speechEdgesMs(clip.samples);
      const found = segments(await detect(detector, concat(silenceMs(1000), clip.samples, silenceMs(1000))));
      expect(found, JSON.stringify(found)).to.have.length(1);
      expect(found[0]!.startMs).to.be.closeTo(1000 + edges.startMs, START_TOLERANCE_MS);
      expect(found[0]!.endMs).to.be.closeTo(1000 + edges.endMs, END_TOLERANCE_MS);
      expect(found[0]!.endMs).to.be.at.least(1000 + edges.endMs - END_EARLY_MS);
    });
  }

  it('reports nothing for digital silence', async () => {
    expect(await detect(detector, silenceMs(5000))).to.deep.equal([]);
  });

  it('reports nothing for low white noise (-40 dBFS) even with no minimum speech duration', async () => {
    expect(await detect(detector, whiteNoise(5000, 550))).to.deep.equal([]);
  });

  it('still finds the speech when that noise runs under it', async () => {
    const clip = librivoxClip('0880');
    const signal = concat(silenceMs(1000), clip.samples, silenceMs(1000));
    const noise = whiteNoise(signal.length / 16, 550);
    const noisy = signal.map((s, i) => s + noise[i]!);
    const edges = speechEdgesMs(clip.samples);
    const found = segments(await detect(detector, noisy));
    expect(found, JSON.stringify(found)).to.have.length(1);
    expect(found[0]!.startMs).to.be.closeTo(1000 + edges.startMs, START_TOLERANCE_MS);
  });

  for (const rate of [8000, 24000, 48000]) {
    it(`gives the same boundaries (within one 32 ms frame) for ${rate / 1000} kHz input`, async () => {
      const signal = concat(silenceMs(1000), librivoxClip('0880').samples, silenceMs(1000));
      const reference = segments(await detect(detector, signal));
      // ffmpeg's resampler (an implementation independent of the detector's) makes the test input.
      const resampled = await ffmpegResample(signal, 16000, rate);
      const found = segments(await detect(detector, resampled, { sampleRate: rate }, [rate / 10]));
      expect(found, JSON.stringify(found)).to.have.length(1);
      expect(found[0]!.startMs).to.be.closeTo(reference[0]!.startMs, 32);
      expect(found[0]!.endMs).to.be.closeTo(reference[0]!.endMs!, 32);
    });
  }
});
