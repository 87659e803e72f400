import { expect } from 'chai';
import { concatPcm, type VoiceActivityDetector, type VoiceActivityEvent, type VoiceActivityOptions } from '@svc/core';
import { SileroVoiceActivityDetector } from '@svc/adapters-speech-recognition';
import { LazyVoiceActivityDetector } from '../../src/runtime/lazy-voice-activity-detector.js';
import { librivoxSentences } from '../helpers/librivox.js';

const OPTIONS: VoiceActivityOptions = {
  sampleRate: 16000,
  threshold: 0.5,
  prefixPaddingMs: 0,
  silenceDurationMs: 500,
  minSpeechDurationMs: 0,
  mode: 'server_vad',
};
const silence = (ms: number) => new Int16Array(16 * ms);
const concat = (...parts: Int16Array[]): Int16Array => concatPcm(parts);

/** Pushes the signal in 640-sample chunks WITHOUT awaiting, refilling one buffer (the engine's own pattern), then collects. */
async function pushAll(detector: VoiceActivityDetector, signal: Int16Array): Promise<VoiceActivityEvent[]> {
  const stream = detector.open(OPTIONS);
  const pending: Promise<VoiceActivityEvent[]>[] = [];
  const chunk = new Int16Array(640);
  for (let offset = 0; offset < signal.length; offset += 640) {
    chunk.fill(0).set(signal.subarray(offset, offset + 640));
    pending.push(Promise.resolve(stream.push(chunk)));
  }
  const events = (await Promise.all(pending)).flat();
  stream.close?.();
  return events;
}

/** The Silero model loaded on the first session instead of at start (SVC_REALTIME_WARM_UP=lazy). */
describe('LazyVoiceActivityDetector (real Silero, loaded on first use)', function () {
  this.timeout(60000);
  let direct: SileroVoiceActivityDetector;
  let signal: Int16Array;
  before(async () => {
    direct = await SileroVoiceActivityDetector.create();
    const [a, b] = librivoxSentences();
    signal = concat(silence(800), a!.samples, silence(1500), b!.samples, silence(1000));
  });
  after(async () => {
    await direct?.close();
  });

  it('loads nothing until a stream opens; audio pushed while the model loads gives the same turns as a loaded detector', async () => {
    const expected = await pushAll(direct, signal);
    expect(expected.map((e) => e.type)).to.deep.equal(['speech_started', 'speech_stopped', 'speech_started', 'speech_stopped']);
    let loads = 0;
    let loaded = null as SileroVoiceActivityDetector | null;
    const lazy = new LazyVoiceActivityDetector(async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 300)); // a slow load: every push below arrives before it ends
      return (loaded = await SileroVoiceActivityDetector.create());
    });
    expect(loads).to.equal(0);
    expect(lazy.current).to.equal(null);
    try {
      expect(await pushAll(lazy, signal)).to.deep.equal(expected);
      expect(loads).to.equal(1);
      // Loaded now: a second session uses the model directly, and the same again.
      expect(await pushAll(lazy, signal)).to.deep.equal(expected);
      expect(loads).to.equal(1);
    } finally {
      await loaded?.close();
    }
  });

  it('a stream opened while the model loads says where speech last sounded (voicedUntilMs), as a loaded one does: barge-in measures voiced speech with it', async () => {
    const lazy = new LazyVoiceActivityDetector(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return direct;
    });
    const stream = lazy.open(OPTIONS);
    const loadedStream = direct.open(OPTIONS);
    const speech = librivoxSentences()[0]!.samples;
    // Speech, then 300 ms of silence (less than silence_duration_ms): the segment is still open.
    const input = concat(silence(500), speech.subarray(0, 16000), silence(300));
    const [events] = await Promise.all([stream.push(input), loadedStream.push(input)]);
    expect(events.map((e) => e.type)).to.deep.equal(['speech_started']);
    const expected = loadedStream.voicedUntilMs!();
    expect(expected).to.be.a('number').and.to.be.within(1000, 1600);
    // Without it the judge counts the trailing silence as speech: a 0.3 s "oh" plus the 0.5 s
    // silence window reached min_interruption_duration (0.8 s) and cancelled the reply.
    expect(stream.voicedUntilMs?.()).to.equal(expected);
    loadedStream.close?.();
    stream.close?.();
  });

  it('keeps reset() in its place among the pushes made while loading', async () => {
    const lazy = new LazyVoiceActivityDetector(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return direct;
    });
    const stream = lazy.open(OPTIONS);
    const speech = librivoxSentences()[0]!.samples;
    // Speech starts, then reset() forgets it: only the speech after the reset may be reported as a turn.
    const first = stream.push(concat(silence(500), speech.subarray(0, 16000)));
    stream.reset();
    const rest = stream.push(concat(speech.subarray(16000), silence(1000)));
    const [before, after] = await Promise.all([first, rest]);
    expect(before.map((e) => e.type)).to.deep.equal(['speech_started']);
    // Without the reset in place the turn in progress would simply end; with it, a new one starts.
    expect(after.map((e) => e.type)).to.deep.equal(['speech_started', 'speech_stopped']);
  });

  it('a load that fails fails the pushes waiting for it, and the next session tries again', async () => {
    let attempts = 0;
    const lazy = new LazyVoiceActivityDetector(async () => {
      attempts++;
      if (attempts === 1) throw new Error('model file missing');
      return direct;
    });
    const failed = await Promise.resolve(lazy.open(OPTIONS).push(silence(100))).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(failed?.message).to.equal('model file missing');
    expect(await pushAll(lazy, concat(silence(300), librivoxSentences()[0]!.samples, silence(1000)))).to.have.length(2);
    expect(attempts).to.equal(2);
  });
});
