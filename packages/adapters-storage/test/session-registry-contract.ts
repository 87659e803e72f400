import { expect } from 'chai';
import type { AdmissionDecision, RealtimeSessionRegistry, SessionCaps } from '@svc/core';

/** The lease of an admitted decision (fails the test for a refusal). */
export function leaseOf(decision: AdmissionDecision) {
  if (!decision.admitted) throw new Error(`expected admission, got ${decision.refusal}`);
  return decision.lease;
}

const refusalOf = (d: AdmissionDecision) => (d.admitted ? 'admitted' : d.refusal);

/**
 * The spec's admission rules every RealtimeSessionRegistry keeps (in memory and in Redis): the global
 * and per-key caps refuse with at_capacity (close 1013), a second live session of one ephemeral key
 * with duplicate_session (close 4009), and a released slot is free again. `make` gives two registries
 * that share their state (the same object in memory; two clients on one Redis).
 */
export function sessionRegistryContract(make: (caps: SessionCaps) => Promise<[RealtimeSessionRegistry, RealtimeSessionRegistry]>): void {
  it('refuses over the per-key cap and frees the slot on release', async () => {
    const [a, b] = await make({ maxSessions: 10, maxSessionsPerKey: 2 });
    const first = leaseOf(await a.admit({ apiKeyId: 'k1', secretSessionId: null }));
    leaseOf(await b.admit({ apiKeyId: 'k1', secretSessionId: null }));
    expect(refusalOf(await a.admit({ apiKeyId: 'k1', secretSessionId: null }))).to.equal('at_capacity');
    expect(refusalOf(await b.admit({ apiKeyId: 'k2', secretSessionId: null })), 'another key is not affected').to.equal('admitted');
    await first.release();
    await first.release(); // twice is harmless
    expect(refusalOf(await b.admit({ apiKeyId: 'k1', secretSessionId: null }))).to.equal('admitted');
    expect(refusalOf(await a.admit({ apiKeyId: 'k1', secretSessionId: null }))).to.equal('at_capacity');
  });

  it('refuses over the global cap whatever the key', async () => {
    const [a, b] = await make({ maxSessions: 3, maxSessionsPerKey: 3 });
    const leases = [];
    for (const [r, key] of [
      [a, 'k1'],
      [b, 'k2'],
      [a, 'k3'],
    ] as const)
      leases.push(leaseOf(await r.admit({ apiKeyId: key, secretSessionId: null })));
    expect(refusalOf(await b.admit({ apiKeyId: 'k4', secretSessionId: null }))).to.equal('at_capacity');
    await leases[1]!.release();
    expect(refusalOf(await b.admit({ apiKeyId: 'k4', secretSessionId: null }))).to.equal('admitted');
    expect([...new Set([a, b])].reduce((n, r) => n + r.localSessions(), 0)).to.equal(3);
  });

  it('admits one live session per ephemeral key (duplicate_session), again once it ends', async () => {
    const [a, b] = await make({ maxSessions: 10, maxSessionsPerKey: 10 });
    const live = leaseOf(await a.admit({ apiKeyId: 'k1', secretSessionId: 'sess_1' }));
    expect(refusalOf(await b.admit({ apiKeyId: 'k1', secretSessionId: 'sess_1' }))).to.equal('duplicate_session');
    expect(refusalOf(await b.admit({ apiKeyId: 'k1', secretSessionId: 'sess_2' }))).to.equal('admitted');
    await live.release();
    expect(refusalOf(await b.admit({ apiKeyId: 'k1', secretSessionId: 'sess_1' }))).to.equal('admitted');
  });

  it('never overfills a cap under concurrent admissions from both', async () => {
    const [a, b] = await make({ maxSessions: 100, maxSessionsPerKey: 7 });
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).admit({ apiKeyId: 'k', secretSessionId: null })),
    );
    expect(decisions.filter((d) => d.admitted)).to.have.length(7);
    const dup = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).admit({ apiKeyId: 'k2', secretSessionId: 'same' })));
    expect(dup.filter((d) => d.admitted)).to.have.length(1);
  });
}
