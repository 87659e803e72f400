import { expect } from 'chai';
import {
  CapacityAwareSessionRegistry,
  DEFAULT_MAX_EVENT_LOOP_LAG_MS,
  DEFAULT_MAX_RECOGNIZER_BACKLOG_MS,
  fairShareVerdict,
  FloodCooldownSessionRegistry,
  InMemorySessionRegistry,
  RealtimeAdmission,
  ServiceUnavailableError,
  type AdmissionOutcome,
  type AdmissionRequest,
  type AdmittedSession,
  type Logger,
  type RealtimeSessionRegistry,
  type ServerLoad,
} from '../../src/index.js';
import { FakeClock } from '../fakes/index.js';

const principal = (apiKeyId: string) => ({ apiKeyId, name: apiKeyId });
const byKey = (apiKeyId: string) => ({ principal: principal(apiKeyId), secretSessionId: null });
const bySecret = (apiKeyId: string, session: string) => ({ principal: principal(apiKeyId), secretSessionId: session });
const outcome = (o: AdmissionOutcome) => (o.admitted ? 'admitted' : o.refusal);
const sessionOf = (o: AdmissionOutcome): AdmittedSession => {
  if (!o.admitted) throw new Error(`expected admission, got ${o.refusal}`);
  return o.session;
};
const quiet: ServerLoad = { budgetCores: 1.1, sessionCores: 0.17, recognizerBacklogMs: 0, recognizerQueue: 0, eventLoopLagMs: 2 };
const limits = {
  fixedSessions: null,
  maxRecognizerBacklogMs: DEFAULT_MAX_RECOGNIZER_BACKLOG_MS,
  maxEventLoopLagMs: DEFAULT_MAX_EVENT_LOOP_LAG_MS,
};

/** A logger that keeps what was said. */
function recordingLogger(): Logger & { lines: Array<{ level: string; msg: string | undefined; obj: Record<string, unknown> }> } {
  const lines: Array<{ level: string; msg: string | undefined; obj: Record<string, unknown> }> = [];
  const log = (level: string) => (obj: Record<string, unknown>, msg?: string) => void lines.push({ level, msg, obj });
  const logger = { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error'), child: () => logger };
  return logger;
}

/** The server's registry stack over this process's counts: flood cooldown, capacity and fairness, caps. */
function serverStack(clock: FakeClock, options: { capacity?: number | null; perKey?: number } = {}): RealtimeSessionRegistry {
  const caps = new InMemorySessionRegistry({ maxSessions: 100, maxSessionsPerKey: options.perKey ?? 10 });
  const capacity = new CapacityAwareSessionRegistry(caps, { read: () => quiet }, { ...limits, fixedSessions: options.capacity ?? null });
  return new FloodCooldownSessionRegistry(capacity, clock, 10_000);
}

describe('RealtimeAdmission: the one admission path of every realtime transport', () => {
  it('admits through the registry and frees the slot once when the session ends, whatever ends it', async () => {
    const registry = new InMemorySessionRegistry({ maxSessions: 2, maxSessionsPerKey: 2 });
    const admission = new RealtimeAdmission({ registry, clock: new FakeClock(), logger: recordingLogger() });
    const first = sessionOf(await admission.admit(byKey('k1')));
    sessionOf(await admission.admit(byKey('k2')));
    expect(outcome(await admission.admit(byKey('k3')))).to.equal('at_capacity');
    expect(admission.localSessions()).to.equal(2);
    first.end('hangup');
    first.end('peer_gone'); // the transport's second ending frees nothing more
    await Promise.resolve();
    expect(admission.localSessions()).to.equal(1);
    expect(outcome(await admission.admit(byKey('k3')))).to.equal('admitted');
    expect(outcome(await admission.admit(byKey('k4')))).to.equal('at_capacity');
  });

  it('a registry that does not answer refuses with dependency_unavailable (its failure kept as the cause) and says so at warn', async () => {
    const down: RealtimeSessionRegistry = {
      admit: () => Promise.reject(new ServiceUnavailableError('redis')),
      localSessions: () => 0,
      close: async () => undefined,
    };
    const logger = recordingLogger();
    const refused = await new RealtimeAdmission({ registry: down, clock: new FakeClock(), logger }).admit(byKey('k1'));
    expect(refused).to.deep.include({ admitted: false, refusal: 'dependency_unavailable' });
    expect((refused as { cause: unknown }).cause).to.be.instanceOf(ServiceUnavailableError);
    expect(logger.lines.map((l) => `${l.level} ${l.msg}`)).to.deep.equal(['warn realtime session registry unavailable; session refused']);
  });

  it('says capacity and cooldown refusals at info, with the key and the reason', async () => {
    const clock = new FakeClock();
    const logger = recordingLogger();
    const admission = new RealtimeAdmission({ registry: serverStack(clock, { capacity: 1 }), clock, logger });
    sessionOf(await admission.admit(byKey('k1')));
    const refused = await admission.admit(byKey('k2'));
    expect(refused).to.deep.equal({
      admitted: false,
      refusal: 'over_capacity',
      reason: 'server at capacity (1 of 1 sessions open); retry later',
    });
    expect(logger.lines).to.deep.equal([
      {
        level: 'info',
        msg: 'realtime session refused: server at capacity',
        obj: { apiKeyId: 'k2', reason: 'server at capacity (1 of 1 sessions open); retry later' },
      },
    ]);
  });

  describe('a flood (the transport ends the session with inbound_rate_exceeded)', () => {
    it("makes the session's key wait; any other ending does not", async () => {
      const clock = new FakeClock();
      const admission = new RealtimeAdmission({ registry: serverStack(clock), clock, logger: recordingLogger() });
      sessionOf(await admission.admit(byKey('calm'))).end('hangup');
      expect(outcome(await admission.admit(byKey('calm')))).to.equal('admitted');
      sessionOf(await admission.admit(byKey('flooder'))).end('inbound_rate_exceeded');
      const refused = await admission.admit(byKey('flooder'));
      expect(refused).to.deep.include({
        refusal: 'flood_cooldown',
        reason: "this key's last session sent more than its inbound budget; retry in 10 s",
      });
      clock.advance(10_000);
      expect(outcome(await admission.admit(byKey('flooder')))).to.equal('admitted');
    });

    it('of an ephemeral key holds back the key that minted it: a freshly minted ephemeral key does not bypass the wait (issue 33)', async () => {
      const clock = new FakeClock();
      const admission = new RealtimeAdmission({ registry: serverStack(clock), clock, logger: recordingLogger() });
      sessionOf(await admission.admit(bySecret('app', 'sess_1'))).end('inbound_rate_exceeded');
      expect(outcome(await admission.admit(bySecret('app', 'sess_2'))), 'a fresh ephemeral key of the same key').to.equal('flood_cooldown');
      expect(outcome(await admission.admit(byKey('app'))), 'the minting key').to.equal('flood_cooldown');
      expect(outcome(await admission.admit(bySecret('other', 'sess_3'))), 'another key').to.equal('admitted');
    });
  });

  describe('revocation', () => {
    it('ends the sessions of a revoked key (and of ephemeral keys it minted) through their transports, and only those', async () => {
      const revoked = new Set<string>();
      const admission = new RealtimeAdmission({
        registry: new InMemorySessionRegistry({ maxSessions: 10, maxSessionsPerKey: 10 }),
        isKeyActive: async (id) => !revoked.has(id),
        clock: new FakeClock(),
        logger: recordingLogger(),
      });
      const ended: string[] = [];
      const open = async (request: AdmissionRequest, name: string) =>
        sessionOf(await admission.admit(request)).onRevoked(() => ended.push(name));
      await open(byKey('k1'), 'k1 socket');
      await open(bySecret('k1', 'sess_b'), 'k1 browser call');
      await open(byKey('k2'), 'k2 socket');
      await admission.endRevokedSessions();
      expect(ended).to.deep.equal([]);
      revoked.add('k1');
      await admission.endRevokedSessions();
      expect(ended).to.deep.equal(['k1 socket', 'k1 browser call']);
    });

    it('a key store that fails is not a revocation; the watch runs on the clock every interval until stopped', async () => {
      const clock = new FakeClock();
      let answer: () => Promise<boolean> = () => Promise.reject(new Error('database down'));
      let asked = 0;
      const admission = new RealtimeAdmission({
        registry: new InMemorySessionRegistry({ maxSessions: 10, maxSessionsPerKey: 10 }),
        isKeyActive: () => (asked++, answer()),
        clock,
        logger: recordingLogger(),
      });
      let ended = 0;
      sessionOf(await admission.admit(byKey('k1'))).onRevoked(() => ended++);
      const watch = admission.watchRevocations(2000)!;
      clock.advance(2000);
      await new Promise((r) => setImmediate(r));
      expect([asked, ended], 'asked once, the failure is no revocation').to.deep.equal([1, 0]);
      answer = async () => false;
      clock.advance(2000);
      await new Promise((r) => setImmediate(r));
      expect([asked, ended]).to.deep.equal([2, 1]);
      await watch.stop();
      clock.advance(10_000);
      await new Promise((r) => setImmediate(r));
      expect(asked, 'no check after stop').to.equal(2);
    });

    it('without a key check there is no watch', () => {
      const admission = new RealtimeAdmission({
        registry: new InMemorySessionRegistry({ maxSessions: 1, maxSessionsPerKey: 1 }),
        clock: new FakeClock(),
        logger: recordingLogger(),
      });
      expect(admission.watchRevocations()).to.equal(null);
    });
  });
});

describe('fairness across keys when capacity is short (issue 33)', () => {
  it('one key cannot take every slot: at a capacity of 6 it gets 5, and a key holding none takes the sixth', async () => {
    // 1.1 cores / 0.17 per speaking session = 6 sessions, as on the 2-core server of the issue.
    const clock = new FakeClock();
    const admission = new RealtimeAdmission({ registry: serverStack(clock), clock, logger: recordingLogger() });
    const a: AdmissionOutcome[] = [];
    for (let i = 0; i < 10; i++) a.push(await admission.admit(byKey('A')));
    expect(a.map(outcome)).to.deep.equal([...Array(5).fill('admitted'), ...Array(5).fill('over_capacity')]);
    expect((a[5] as { reason: string }).reason).to.equal(
      'server nearly full: this key holds 5 of 5 sessions, the last 1 of 6 kept for other keys; retry later',
    );
    expect(outcome(await admission.admit(byKey('B'))), 'a key holding none').to.equal('admitted');
    expect(outcome(await admission.admit(byKey('C'))), 'the server is full now').to.equal('over_capacity');
    // A's sessions over ephemeral keys count for A.
    expect(outcome(await admission.admit(bySecret('A', 'sess_x')))).to.equal('over_capacity');
    sessionOf(a[0]!).end('client_closed');
    expect(outcome(await admission.admit(byKey('A'))), '5 open again: the last slot stays kept for a key holding none').to.equal(
      'over_capacity',
    );
    expect(outcome(await admission.admit(byKey('C'))), 'C holds none').to.equal('admitted');
  });

  it('the reserve is one slot in six; a key alone on a small server (under six slots) may use all of it', () => {
    expect(fairShareVerdict(4, 4, 6).admit, '5th of 6').to.equal(true);
    expect(fairShareVerdict(5, 5, 6).admit, '6th of 6 for a key that holds some').to.equal(false);
    expect(fairShareVerdict(5, 0, 6).admit, '6th of 6 for a key that holds none').to.equal(true);
    expect(fairShareVerdict(9, 9, 12).admit, '10th of 12').to.equal(true);
    expect(fairShareVerdict(10, 1, 12).admit, '11th of 12: two kept').to.equal(false);
    expect(fairShareVerdict(2, 2, 3).admit, 'a 3-slot server keeps none').to.equal(true);
    expect(fairShareVerdict(1e9, 1e9, Number.POSITIVE_INFINITY).admit, 'no capacity limit').to.equal(true);
    const worst = fairShareVerdict(999_999, 999_999, 1_000_000) as { reason: string };
    expect(Buffer.byteLength(worst.reason), 'fits a WebSocket close reason').to.be.at.most(123);
  });

  it('a session refused by the caps after the fairness check gives back its per-key count', async () => {
    const clock = new FakeClock();
    const admission = new RealtimeAdmission({ registry: serverStack(clock, { capacity: 6, perKey: 2 }), clock, logger: recordingLogger() });
    for (let i = 0; i < 2; i++) sessionOf(await admission.admit(byKey('A')));
    expect(outcome(await admission.admit(byKey('A'))), 'per-key cap').to.equal('at_capacity');
    for (let i = 0; i < 2; i++) sessionOf(await admission.admit(byKey('B')));
    sessionOf(await admission.admit(byKey('C')));
    // 5 open: only a key holding none may take the sixth.
    expect(outcome(await admission.admit(byKey('C')))).to.equal('over_capacity');
    expect(outcome(await admission.admit(byKey('D')))).to.equal('admitted');
  });
});
