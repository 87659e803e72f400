import { expect } from 'chai';
import type { VoiceActivityEvent, VoiceActivityOptions } from '@svc/core';
import { segmenterSettings, SpeechSegmenter } from '../../src/index.js';
import { BASE_OPTIONS } from './vad-harness.js';

/** Feeds one probability per 32 ms frame and collects the events. */
function run(probabilities: number[], options: Partial<VoiceActivityOptions> = {}): VoiceActivityEvent[] {
  const segmenter = new SpeechSegmenter(segmenterSettings({ ...BASE_OPTIONS, ...options }));
  const events: VoiceActivityEvent[] = [];
  probabilities.forEach((p, k) => {
    const event = segmenter.next(p, k * 32, (k + 1) * 32);
    if (event) events.push(event);
  });
  return events;
}

const frames = (count: number, p: number): number[] => Array<number>(count).fill(p);

describe('SpeechSegmenter (the decision rules, without the model)', () => {
  it('starts at the first speech frame and stops where the silence began', () => {
    const events = run([...frames(10, 0.1), ...frames(10, 0.9), ...frames(20, 0.1)], { silenceDurationMs: 320 });
    expect(events).to.deep.equal([
      { type: 'speech_started', audioStartMs: 320 },
      { type: 'speech_stopped', audioEndMs: 640 },
    ]);
  });

  it('says where speech last sounded in the open segment (barge-in measures voiced time with it), null between segments', () => {
    const segmenter = new SpeechSegmenter(segmenterSettings({ ...BASE_OPTIONS, silenceDurationMs: 320 }));
    const seen: (number | null)[] = [];
    [...frames(5, 0.1), ...frames(10, 0.9), ...frames(5, 0.1), ...frames(10, 0.1)].forEach((p, k) => {
      segmenter.next(p, k * 32, (k + 1) * 32);
      seen.push(segmenter.voicedUntilMs);
    });
    expect(seen[4]).to.equal(null);
    expect(seen[14]).to.equal(15 * 32);
    // The trailing silence does not move it; the stop clears it.
    expect(seen[18]).to.equal(15 * 32);
    expect(seen[29]).to.equal(null);
  });

  it('uses hysteresis: frames between threshold - 0.15 and threshold neither start nor end silence', () => {
    // 0.4 is below the 0.5 start threshold but above the 0.35 silence threshold.
    const events = run([...frames(5, 0.9), ...frames(30, 0.4), ...frames(10, 0.1)], { silenceDurationMs: 320 });
    expect(events).to.deep.equal([
      { type: 'speech_started', audioStartMs: 0 },
      { type: 'speech_stopped', audioEndMs: 35 * 32 },
    ]);
    expect(run(frames(30, 0.4))).to.deep.equal([]);
  });

  it('needs min_speech_duration of unbroken speech, then reports where that speech began', () => {
    expect(run([0.9, 0.9, 0.1, 0.9, 0.9, 0.1], { minSpeechDurationMs: 96 })).to.deep.equal([]);
    expect(run([0.1, 0.9, 0.9, 0.9, 0.1], { minSpeechDurationMs: 96 })).to.deep.equal([{ type: 'speech_started', audioStartMs: 32 }]);
  });

  it('semantic_vad keeps the configured silence (the engine adds waits from the words)', () => {
    expect(segmenterSettings({ ...BASE_OPTIONS, mode: 'semantic_vad', silenceDurationMs: 200 }).silenceDurationMs).to.equal(200);
    expect(segmenterSettings({ ...BASE_OPTIONS, mode: 'server_vad', silenceDurationMs: 200 }).silenceDurationMs).to.equal(200);
  });
});
