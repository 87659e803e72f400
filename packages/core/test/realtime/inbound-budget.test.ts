import { expect } from 'chai';
import { InboundBudget } from '../../src/realtime/admission/inbound-budget.js';

describe('InboundBudget (frames and bytes per second, token buckets)', () => {
  const limits = { eventsPerSecond: 10, burstEvents: 20, bytesPerSecond: 1000, burstBytes: 4000 };

  it('admits the burst at once, then refuses', () => {
    let now = 0;
    const budget = new InboundBudget(limits, () => now);
    for (let i = 0; i < 20; i++) expect(budget.take(10), `frame ${i}`).to.equal(true);
    expect(budget.take(10)).to.equal(false);
  });

  it('refills at the rate: a client at the rate is never refused', () => {
    let now = 0;
    const budget = new InboundBudget(limits, () => now);
    for (let i = 0; i < 1000; i++) {
      now += 100; // 10 frames a second, for 100 s
      expect(budget.take(50)).to.equal(true);
    }
  });

  it('counts bytes: big frames run out before the frame count does', () => {
    let now = 0;
    const budget = new InboundBudget(limits, () => now);
    expect(budget.take(3000)).to.equal(true);
    expect(budget.take(1500)).to.equal(false);
    now += 2000; // 2 s: 2000 bytes back (capped at the burst)
    expect(budget.take(1500)).to.equal(true);
  });

  it('never holds more than its burst after a long silence', () => {
    let now = 0;
    const budget = new InboundBudget(limits, () => now);
    now += 3_600_000;
    for (let i = 0; i < 20; i++) budget.take(1);
    expect(budget.take(1)).to.equal(false);
  });
});
