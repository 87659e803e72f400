import { expect } from 'chai';
import { SileroVoiceActivityDetector } from '../../src/index.js';
import { concat, librivoxClip, silenceMs, speechEdgesMs, whiteNoise } from '@svc/adapters-testing';
import { detect, segments } from './vad-harness.js';

describe('SileroVoiceActivityDetector: turn detection options', () => {
  let detector: SileroVoiceActivityDetector;
  // Two short sentences; each alone is one segment with a 500 ms silence rule.
  const first = (): Int16Array => librivoxClip('0880').samples;
  const second = (): Int16Array => librivoxClip('0930').samples;
  /** The clip without its own lead-in and tail (~0.25 s each), so `gapMs` is the whole pause. */
  const speechOnly = (samples: Int16Array): Int16Array => {
    const { startMs, endMs } = speechEdgesMs(samples);
    return samples.slice(startMs * 16, endMs * 16);
  };
  const twoUtterances = (gapMs: number): Int16Array =>
    concat(silenceMs(1000), speechOnly(first()), silenceMs(gapMs), speechOnly(second()), silenceMs(2500));

  before(async () => {
    detector = await SileroVoiceActivityDetector.create();
  });
  after(async () => {
    await detector.close();
  });

  it('splits two utterances 1.5 s apart with silence_duration_ms 500', async () => {
    const found = segments(await detect(detector, twoUtterances(1500), { silenceDurationMs: 500 }));
    expect(found, JSON.stringify(found)).to.have.length(2);
    expect(found.every((s) => s.endMs !== null)).to.equal(true);
  });

  it('keeps them as one segment with silence_duration_ms 2000', async () => {
    const found = segments(await detect(detector, twoUtterances(1500), { silenceDurationMs: 2000 }));
    expect(found, JSON.stringify(found)).to.have.length(1);
    // It ends where the second sentence ends, not at the first one's end.
    expect(found[0]!.endMs).to.be.greaterThan(1000 + first().length / 16 + 1500);
  });

  it('reports speech_stopped at the end of the speech, not when the silence was confirmed', async () => {
    const short = segments(await detect(detector, twoUtterances(1500), { silenceDurationMs: 300 }));
    const long = segments(await detect(detector, twoUtterances(1500), { silenceDurationMs: 1000 }));
    expect(long[0]!.endMs).to.equal(short[0]!.endMs);
  });

  it('semantic_vad reports silence like server_vad: the engine judges the words (semantic-turn-end)', async () => {
    const server = segments(await detect(detector, twoUtterances(800), { mode: 'server_vad', silenceDurationMs: 500 }));
    const semantic = segments(await detect(detector, twoUtterances(800), { mode: 'semantic_vad', silenceDurationMs: 500 }));
    expect(semantic).to.deep.equal(server);
  });

  it('moves the reported start back by prefix_padding_ms', async () => {
    const signal = concat(silenceMs(1000), first(), silenceMs(1000));
    const plain = segments(await detect(detector, signal, { prefixPaddingMs: 0 }));
    const padded = segments(await detect(detector, signal, { prefixPaddingMs: 300 }));
    expect(padded[0]!.startMs).to.equal(plain[0]!.startMs - 300);
    expect(padded[0]!.endMs).to.equal(plain[0]!.endMs);
  });

  it('never reports a padded start below 0', async () => {
    const found = segments(await detect(detector, concat(first(), silenceMs(1000)), { prefixPaddingMs: 2000 }));
    expect(found[0]!.startMs).to.equal(0);
  });

  describe('min_speech_duration', () => {
    // A 60 ms click of speech: 60 ms cut out of a sentence ("was", 0.5 s in). The detector does call
    // it speech (first test: any 60 ms cut from 0.3-0.8 s does), so the option is what suppresses it.
    // A synthetic noise click is not speech to Silero at all (third test).
    const click = (): Int16Array => {
      const from = Math.round(0.5 * 16000);
      return concat(silenceMs(1000), first().slice(from, from + 960), silenceMs(1000));
    };

    it('a 60 ms click of speech is a segment without a minimum duration', async () => {
      expect(segments(await detect(detector, click(), { minSpeechDurationMs: 0 }))).to.have.length(1);
    });

    it('is suppressed by min_speech_duration 250 ms, while a sentence still starts at its onset', async () => {
      expect(await detect(detector, click(), { minSpeechDurationMs: 250 })).to.deep.equal([]);
      const sentence = concat(silenceMs(1000), first(), silenceMs(1000));
      const immediate = segments(await detect(detector, sentence, { minSpeechDurationMs: 0 }));
      const confirmed = segments(await detect(detector, sentence, { minSpeechDurationMs: 250 }));
      expect(confirmed).to.have.length(1);
      expect(confirmed[0]!.startMs).to.equal(immediate[0]!.startMs);
    });

    it('a 60 ms synthetic noise click is not speech at all', async () => {
      const noiseClick = whiteNoise(60, 20000);
      expect(await detect(detector, concat(silenceMs(1000), noiseClick, silenceMs(1000)))).to.deep.equal([]);
    });
  });

  it('a higher threshold hears less: at 0.99 the sentence is not (or only partly) speech', async () => {
    const signal = concat(silenceMs(1000), first(), silenceMs(1000));
    const normal = segments(await detect(detector, signal, { threshold: 0.5 }));
    const strict = segments(await detect(detector, signal, { threshold: 0.99, silenceDurationMs: 0 }));
    const covered = (list: typeof normal): number => list.reduce((ms, s) => ms + ((s.endMs ?? signal.length / 16) - s.startMs), 0);
    expect(covered(strict)).to.be.lessThan(covered(normal));
  });
});
