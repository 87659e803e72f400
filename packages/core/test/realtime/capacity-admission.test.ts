import { expect } from 'chai';
import {
  CapacityAwareSessionRegistry,
  capacityVerdict,
  DEFAULT_MAX_RECOGNIZER_BACKLOG_MS,
  InMemorySessionRegistry,
  type AdmissionDecision,
  type ServerLoad,
} from '../../src/index.js';
import { limits } from './support/capacity-limits.js';

const quiet: ServerLoad = { budgetCores: 1.6, sessionCores: 0.15, recognizerBacklogMs: 0, recognizerQueue: 0, eventLoopLagMs: 2 };
const claim = (key = 'k1') => ({ apiKeyId: key, secretSessionId: null });
const outcome = (d: AdmissionDecision) => (d.admitted ? 'admitted' : d.refusal);

describe('admission by capacity: what one more speaking session would cost against what the server has left', () => {
  it('capacity is the CPU budget over what one speaking session costs (1.6 cores / 0.15 = 10 sessions)', () => {
    expect(capacityVerdict(9, quiet, limits)).to.deep.equal({ admit: true });
    const full = capacityVerdict(10, quiet, limits);
    expect(full.admit).to.equal(false);
    expect((full as { reason: string }).reason).to.equal('server at capacity (10 sessions open at 0.15 CPU each of 1.6); retry later');
    // Sessions that turn out dearer (measured) shrink it: 0.2 cores each -> 8.
    expect(capacityVerdict(8, { ...quiet, sessionCores: 0.2 }, limits).admit).to.equal(false);
    expect(capacityVerdict(7, { ...quiet, sessionCores: 0.2 }, limits).admit).to.equal(true);
  });

  it('live avatars take their CPU out of the budget first, so voice sessions keep what is left (1.1 - 0.34 = 0.76 / 0.17 = 4)', () => {
    const withAvatar: ServerLoad = { ...quiet, budgetCores: 1.1, sessionCores: 0.17, avatarCores: 0.34 };
    expect(capacityVerdict(3, withAvatar, limits)).to.deep.equal({ admit: true });
    expect(capacityVerdict(4, withAvatar, limits)).to.deep.equal({
      admit: false,
      reason: 'server at capacity (4 sessions open at 0.17 CPU each + 0.34 for live avatars of 1.1); retry later',
    });
    // Without the avatar the same budget holds 6; avatars over the whole budget leave none.
    expect(capacityVerdict(5, { ...withAvatar, avatarCores: 0 }, limits).admit).to.equal(true);
    expect(capacityVerdict(0, { ...withAvatar, avatarCores: 2 }, limits).admit).to.equal(false);
  });

  it('a fixed number of sessions replaces the arithmetic', () => {
    const fixed = { ...limits, fixedSessions: 2 };
    expect(capacityVerdict(1, quiet, fixed).admit).to.equal(true);
    expect(capacityVerdict(2, quiet, fixed)).to.deep.equal({
      admit: false,
      reason: 'server at capacity (2 of 2 sessions open); retry later',
    });
  });

  it('refuses below the count when the sessions already admitted are being served late', () => {
    const behind = capacityVerdict(1, { ...quiet, recognizerBacklogMs: 2400 }, limits);
    expect(behind).to.deep.equal({ admit: false, reason: 'server at capacity (speech recognition 2.4 s behind real time); retry later' });
    expect(capacityVerdict(1, { ...quiet, recognizerBacklogMs: DEFAULT_MAX_RECOGNIZER_BACKLOG_MS }, limits).admit, 'at the limit').to.equal(
      true,
    );
    expect(capacityVerdict(1, { ...quiet, recognizerQueue: 2 }, limits)).to.deep.equal({
      admit: false,
      reason: 'server at capacity (2 turns waiting for a speech decoder); retry later',
    });
    expect(capacityVerdict(1, { ...quiet, eventLoopLagMs: 180 }, limits)).to.deep.equal({
      admit: false,
      reason: 'server at capacity (event loop 180 ms late); retry later',
    });
  });

  it('every reason fits a WebSocket close reason (123 bytes)', () => {
    const worst: ServerLoad = {
      budgetCores: 123456.789,
      sessionCores: 0.000123,
      recognizerBacklogMs: 0,
      recognizerQueue: 0,
      eventLoopLagMs: 0,
    };
    const reasons = [
      capacityVerdict(2e9, worst, limits),
      capacityVerdict(0, { ...quiet, recognizerBacklogMs: 1e9 }, limits),
      capacityVerdict(0, { ...quiet, recognizerQueue: 1e6 }, limits),
      capacityVerdict(0, { ...quiet, eventLoopLagMs: 1e9 }, limits),
    ];
    for (const r of reasons) expect(Buffer.byteLength((r as { reason: string }).reason)).to.be.at.most(123);
  });

  describe('CapacityAwareSessionRegistry (over the count registry)', () => {
    it('admits up to capacity, refuses with over_capacity and the reason, and frees the slot on release', async () => {
      const registry = new CapacityAwareSessionRegistry(
        new InMemorySessionRegistry({ maxSessions: 100, maxSessionsPerKey: 100 }),
        { read: () => quiet },
        { ...limits, fixedSessions: 2 },
      );
      const first = await registry.admit(claim());
      expect(outcome(await registry.admit(claim('k2')))).to.equal('admitted');
      const refused = await registry.admit(claim('k3'));
      expect(refused).to.deep.equal({
        admitted: false,
        refusal: 'over_capacity',
        reason: 'server at capacity (2 of 2 sessions open); retry later',
      });
      expect(registry.localSessions()).to.equal(2);
      if (!first.admitted) throw new Error('expected admission');
      await first.lease.release();
      await first.lease.release(); // twice is harmless
      expect(outcome(await registry.admit(claim('k3')))).to.equal('admitted');
      expect(outcome(await registry.admit(claim('k4')))).to.equal('over_capacity');
    });

    it('connections arriving together cannot overfill it (the slot is taken before the registry answers)', async () => {
      const slow = new InMemorySessionRegistry({ maxSessions: 100, maxSessionsPerKey: 100 });
      const delayed = {
        admit: async (c: ReturnType<typeof claim>) => (await new Promise((r) => setTimeout(r, 5)), slow.admit(c)),
        localSessions: () => slow.localSessions(),
        close: () => slow.close(),
      };
      const registry = new CapacityAwareSessionRegistry(delayed, { read: () => quiet }, { ...limits, fixedSessions: 3 });
      const decisions = await Promise.all(Array.from({ length: 8 }, (_, i) => registry.admit(claim(`k${i}`))));
      expect(decisions.filter((d) => d.admitted)).to.have.length(3);
      expect(decisions.filter((d) => !d.admitted && d.refusal === 'over_capacity')).to.have.length(5);
    });

    it("the registry's own rules still apply, and its refusal or failure gives the reserved slot back", async () => {
      const inner = new InMemorySessionRegistry({ maxSessions: 100, maxSessionsPerKey: 1 });
      const registry = new CapacityAwareSessionRegistry(inner, { read: () => quiet }, { ...limits, fixedSessions: 2 });
      expect(outcome(await registry.admit(claim('k1')))).to.equal('admitted');
      expect(outcome(await registry.admit(claim('k1'))), 'per-key cap of the registry').to.equal('at_capacity');
      expect(outcome(await registry.admit(claim('k2'))), 'the refused one did not keep a slot').to.equal('admitted');

      let fail = true;
      const flaky = new CapacityAwareSessionRegistry(
        {
          admit: async (c) => (fail ? Promise.reject(new Error('redis down')) : inner.admit(c)),
          localSessions: () => 0,
          close: async () => undefined,
        },
        { read: () => quiet },
        { ...limits, fixedSessions: 1 },
      );
      await flaky.admit(claim('k5')).then(
        () => expect.fail('should reject'),
        (err: Error) => expect(err.message).to.equal('redis down'),
      );
      fail = false;
      expect(outcome(await flaky.admit(claim('k6'))), 'the failed attempt gave its slot back').to.equal('admitted');
    });

    it('reads the load at every admission: a recognizer that fell behind refuses until it catches up', async () => {
      let load = quiet;
      const registry = new CapacityAwareSessionRegistry(
        new InMemorySessionRegistry({ maxSessions: 100, maxSessionsPerKey: 100 }),
        { read: () => load },
        limits,
      );
      expect(outcome(await registry.admit(claim()))).to.equal('admitted');
      load = { ...quiet, recognizerBacklogMs: 5000 };
      const refused = await registry.admit(claim());
      expect(refused).to.deep.include({
        refusal: 'over_capacity',
        reason: 'server at capacity (speech recognition 5.0 s behind real time); retry later',
      });
      load = quiet;
      expect(outcome(await registry.admit(claim()))).to.equal('admitted');
      expect(registry.capacity()).to.equal(10);
    });
  });
});
