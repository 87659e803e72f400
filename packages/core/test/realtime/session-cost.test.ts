import { expect } from 'chai';
import { capacityVerdict, LearnedSessionCost, sessionCapacity, type ServerLoad } from '../../src/index.js';
import { limits } from './support/capacity-limits.js';

/** A quiet 2-core server whose sessions may use 0.9 cores, with what one session is taken to cost. */
const load = (sessionCores: number): ServerLoad => ({
  budgetCores: 0.9,
  sessionCores,
  recognizerBacklogMs: 0,
  recognizerQueue: 0,
  eventLoopLagMs: 2,
});

/** `seconds` of 2 s windows in which `sessions` sessions streamed audio and the server used `cores` per session. */
function learn(cost: LearnedSessionCost, sessions: number, cores: number, seconds: number, fromMs = 0): number {
  let at = fromMs;
  for (let s = 0; s < seconds; s += 2) {
    at += 2000;
    const audioMs = sessions * 2000;
    cost.record(audioMs * cores, audioMs, at);
  }
  return at;
}

describe('admission at the measured knee: callers x their learned CPU cost under the budget', () => {
  it('before any measurement the configured estimate stands in (0.9 cores / 0.17 = 5 callers)', () => {
    const cost = new LearnedSessionCost(0.17);
    expect(cost.measured).to.equal(null);
    expect(sessionCapacity(load(cost.cores()), limits)).to.equal(5);
  });

  it('once learned, a cost below the estimate admits more: no fixed floor (0.11 cores each: 8 callers, the 9th refused)', () => {
    const cost = new LearnedSessionCost(0.17);
    learn(cost, 6, 0.11, 20);
    expect(cost.measured).to.be.closeTo(0.11, 1e-9);
    expect(cost.cores()).to.be.closeTo(0.11, 1e-9);
    expect(sessionCapacity(load(cost.cores()), limits)).to.equal(8);
    expect(capacityVerdict(7, load(cost.cores()), limits)).to.deep.equal({ admit: true });
    expect(capacityVerdict(8, load(cost.cores()), limits)).to.deep.equal({
      admit: false,
      reason: 'server at capacity (8 sessions open at 0.11 CPU each of 0.9); retry later',
    });
  });

  it('a cost above the estimate admits fewer (0.2 cores each: 4)', () => {
    const cost = new LearnedSessionCost(0.17);
    learn(cost, 4, 0.2, 10);
    expect(sessionCapacity(load(cost.cores()), limits)).to.equal(4);
  });

  it('weighs each window by its audio: a window of many callers counts more than one of a single caller', () => {
    const cost = new LearnedSessionCost(0.17);
    cost.record(1 * 2000 * 0.3, 2000, 2000); // one caller alone, 0.3 cores
    cost.record(8 * 2000 * 0.1, 8 * 2000, 4000); // eight callers, 0.1 cores each
    expect(cost.measured).to.be.closeTo((600 + 1600) / 18_000, 1e-9);
  });

  it('needs 2 s of audio before it trusts a measurement', () => {
    const cost = new LearnedSessionCost(0.17);
    cost.record(100, 1500, 2000);
    expect(cost.measured).to.equal(null);
    expect(cost.cores()).to.equal(0.17);
    cost.record(100, 500, 4000);
    expect(cost.measured).to.be.closeTo(0.1, 1e-9);
  });

  it('follows the sessions running now: windows older than the last minute of measuring are forgotten', () => {
    const cost = new LearnedSessionCost(0.17);
    const end = learn(cost, 6, 0.3, 60); // heavy callers for a minute
    learn(cost, 6, 0.1, 60, end); // then a minute of lighter ones
    expect(cost.measured).to.be.closeTo(0.1, 1e-9);
  });

  it('an idle server keeps what it last learned (no window while nobody streams)', () => {
    const cost = new LearnedSessionCost(0.17);
    learn(cost, 6, 0.12, 20);
    // nothing recorded for an hour: the cost stays the last one learned
    expect(cost.cores()).to.be.closeTo(0.12, 1e-9);
  });

  it('ignores windows without audio or with a negative CPU reading', () => {
    const cost = new LearnedSessionCost(0.17);
    cost.record(500, 0, 2000);
    cost.record(-1, 4000, 4000);
    expect(cost.measured).to.equal(null);
  });
});
