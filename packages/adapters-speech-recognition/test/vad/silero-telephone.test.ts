import { expect } from 'chai';
import { muLawDecode, muLawEncode } from '@svc/core';
import { concat, librivoxClip, silenceMs, speechEdgesMs } from '@svc/adapters-testing';
import { SileroVoiceActivityDetector } from '../../src/index.js';
import { detect, segments } from './vad-harness.js';

/** A phone's microphone path: 16 kHz to 8 kHz (a [1 2 1]/4 low-pass, every other sample), then G.711 mu-law and back. */
function overThePhone(samples16k: Int16Array): Int16Array {
  const narrow = new Int16Array(Math.floor(samples16k.length / 2));
  for (let i = 0; i < narrow.length; i++)
    narrow[i] = Math.round(((samples16k[2 * i - 1] ?? 0) + 2 * samples16k[2 * i]! + (samples16k[2 * i + 1] ?? 0)) / 4);
  return muLawDecode(muLawEncode(narrow));
}

/** The session's default server_vad (threshold 0.55, 300 ms prefix, 500 ms silence, 125 ms shortest speech). */
const SESSION_DEFAULTS = { sampleRate: 8000, threshold: 0.55, prefixPaddingMs: 300, silenceDurationMs: 500, minSpeechDurationMs: 125 };

describe('SileroVoiceActivityDetector: telephone speech (8 kHz G.711, a SIP call)', () => {
  let detector: SileroVoiceActivityDetector;
  before(async () => {
    detector = await SileroVoiceActivityDetector.create();
  });
  after(async () => {
    await detector.close();
  });

  // Scored at 16 kHz after upsampling, telephone speech stayed under the threshold for much of a
  // sentence: 0920 was cut short, and in `npm run bench -- sip` the turn of 0880 said after 0870
  // (below) was heard as 0.5 s of speech that ended before the sentence did, so no reply followed it.
  for (const suffix of ['0870', '0880', '0890', '0920']) {
    it(`finds ${suffix} over the phone as one turn from its first to its last word`, async () => {
      const clip = librivoxClip(suffix);
      const edges = speechEdgesMs(clip.samples);
      const phone = overThePhone(concat(silenceMs(1000), clip.samples, silenceMs(1500)));
      const found = segments(await detect(detector, phone, SESSION_DEFAULTS, [160]));
      expect(found, JSON.stringify(found)).to.have.length(1);
      // the start is reported with its 300 ms of prefix padding
      expect(found[0]!.startMs).to.be.closeTo(1000 + edges.startMs - 300, 200);
      expect(found[0]!.endMs, 'the turn is not cut short').to.be.at.least(1000 + edges.endMs - 50);
    });
  }

  it("hears each sentence of the SIP bench's call (three sentences, 12 s apart) as one whole turn", async () => {
    const clips = ['0870', '0880', '0890'].map((suffix) => librivoxClip(suffix));
    const gap = silenceMs(12_000);
    const phone = overThePhone(concat(silenceMs(300), ...clips.flatMap((c) => [c.samples, gap])));
    const found = segments(await detect(detector, phone, SESSION_DEFAULTS, [160]));
    expect(found, JSON.stringify(found)).to.have.length(3);
    let at = 300;
    clips.forEach((clip, k) => {
      const edges = speechEdgesMs(clip.samples);
      expect(found[k]!.startMs, `sentence ${k + 1} starts`).to.be.closeTo(at + edges.startMs - 300, 200);
      expect(found[k]!.endMs, `sentence ${k + 1} is not cut short`).to.be.at.least(at + edges.endMs - 50);
      at += clip.samples.length / 16 + 12_000;
    });
  });

  it('scores 8 kHz streams at 8 kHz, others at 16 kHz, each rate in runs of its own', async () => {
    const before = { wide: detector.batch.stats.frames, narrow: detector.narrowbandBatch.stats.frames };
    await detect(detector, new Int16Array(8000), { sampleRate: 8000 });
    await detect(detector, new Int16Array(16000), { sampleRate: 16000 });
    expect(detector.narrowbandBatch.stats.frames - before.narrow, '1 s at 8 kHz: 31 frames of 32 ms').to.equal(31);
    expect(detector.batch.stats.frames - before.wide, '1 s at 16 kHz').to.equal(31);
  });
});
