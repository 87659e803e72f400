import { expect } from 'chai';
import type { VoiceActivityEvent } from '@svc/core';
import { SileroVoiceActivityDetector } from '../../src/index.js';
import { resampleInt16 } from '@svc/adapters-runtime';
import { concat, librivoxClip, silenceMs } from '@svc/adapters-testing';
import { BASE_OPTIONS, detect } from './vad-harness.js';

describe('SileroVoiceActivityDetector: streaming', () => {
  let detector: SileroVoiceActivityDetector;
  let signal16k: Int16Array;
  let signal24k: Int16Array;
  before(async () => {
    detector = await SileroVoiceActivityDetector.create();
    const clip = librivoxClip('0880').samples;
    signal16k = concat(silenceMs(1000), clip, silenceMs(1500), librivoxClip('0930').samples, silenceMs(1000));
    signal24k = resampleInt16(signal16k, 16000, 24000);
  });
  after(async () => {
    await detector.close();
  });

  // 512 is the model's frame; none of these line up with it.
  const ragged = [1, 7, 333, 1000, 511, 513, 4099, 160];
  for (const [rate, signal] of [
    [16000, (): Int16Array => signal16k],
    [24000, (): Int16Array => signal24k],
  ] as const) {
    it(`gives identical events for any chunking at ${rate / 1000} kHz`, async () => {
      const whole = await detect(detector, signal(), { sampleRate: rate }, [signal().length]);
      expect(whole.length).to.equal(4);
      expect(await detect(detector, signal(), { sampleRate: rate }, ragged)).to.deep.equal(whole);
      expect(await detect(detector, signal(), { sampleRate: rate }, [rate / 50])).to.deep.equal(whole);
    });
  }

  it('keeps pushes in order when the caller does not await them', async () => {
    const expected = await detect(detector, signal16k, {}, [640]);
    const stream = detector.open(BASE_OPTIONS);
    const pending: Promise<VoiceActivityEvent[]>[] = [];
    // The same buffer is refilled after each push: push() must have taken the samples already.
    const chunk = new Int16Array(640);
    for (let offset = 0; offset < signal16k.length; offset += 640) {
      chunk.fill(0).set(signal16k.subarray(offset, offset + 640));
      pending.push(Promise.resolve(stream.push(chunk)));
    }
    const events = (await Promise.all(pending)).flat();
    expect(events).to.deep.equal(expected);
  });

  it('keeps streams independent: interleaved sessions see what they would see alone', async () => {
    const alone = await detect(detector, signal16k, {}, [1600]);
    const a = detector.open(BASE_OPTIONS);
    const b = detector.open(BASE_OPTIONS);
    const eventsA: VoiceActivityEvent[] = [];
    const eventsB: VoiceActivityEvent[] = [];
    const silent = new Int16Array(1600);
    for (let offset = 0; offset < signal16k.length; offset += 1600) {
      const [fromA, fromB] = await Promise.all([a.push(signal16k.subarray(offset, offset + 1600)), b.push(silent)]);
      eventsA.push(...fromA);
      eventsB.push(...fromB);
    }
    expect(eventsA).to.deep.equal(alone);
    expect(eventsB).to.deep.equal([]);
  });

  it('reset() forgets speech in progress but keeps the clock running', async () => {
    const clip = concat(silenceMs(1000), librivoxClip('0880').samples, silenceMs(1000));
    const stream = detector.open(BASE_OPTIONS);
    const firstHalf = await stream.push(clip.subarray(0, 32000));
    expect(firstHalf.map((e) => e.type)).to.deep.equal(['speech_started']);
    stream.reset();
    // The rest of the sentence: may start a new segment, but the interrupted one is never stopped
    // twice; then the same clip again, whose times are offset by everything pushed so far.
    const afterReset = await stream.push(clip.subarray(32000));
    const again = await stream.push(clip);
    const single = await detect(detector, clip);
    const startedAgain = again.find((e) => e.type === 'speech_started');
    expect(afterReset.filter((e) => e.type === 'speech_stopped').length).to.be.at.most(1);
    // Within one frame: the frame grid stays anchored to the stream's first sample, not to the second copy.
    const offsetMs = clip.length / 16;
    const singleStart = (single[0] as { audioStartMs: number }).audioStartMs;
    expect(startedAgain?.type).to.equal('speech_started');
    expect((startedAgain as { audioStartMs: number }).audioStartMs).to.be.closeTo(singleStart + offsetMs, 32);
  });

  it('rejects pushes after close()', async () => {
    const stream = detector.open(BASE_OPTIONS);
    await stream.push(silenceMs(100));
    stream.close();
    let error: unknown;
    try {
      await stream.push(silenceMs(100));
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(Error);
  });

  it('rejects options out of range', () => {
    expect(() => detector.open({ ...BASE_OPTIONS, threshold: 1.5 })).to.throw(RangeError);
    expect(() => detector.open({ ...BASE_OPTIONS, silenceDurationMs: -1 })).to.throw(RangeError);
    expect(() => detector.open({ ...BASE_OPTIONS, sampleRate: 0 })).to.throw(/sample rate/i);
  });
});
