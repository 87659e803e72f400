import { expect } from 'chai';
import { REALTIME_TOKENS } from '@svc/core';
import { ManualClock } from '../helpers/manual-clock.js';
import { RealtimeClient } from '../helpers/realtime-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { WebRtcTestClient } from '../helpers/webrtc-client.js';
import { SERVER_TOKENS } from '../../src/tokens.js';

const TEXT_SESSION = { type: 'realtime', model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } };

/** A WebSocket session that sends one session.update and then idles: its first event, or its close. */
async function idleSession(
  t: TestServer,
  key: string,
): Promise<{ client: RealtimeClient; admitted: boolean; close: { code: number; reason: string } | null }> {
  const client = RealtimeClient.connect(t.wsUrl, { headers: { Authorization: `Bearer ${key}` } });
  client.send({ type: 'session.update', session: TEXT_SESSION });
  const first = await Promise.race([client.next(10_000).then(() => 'created' as const), client.closed.then(() => 'closed' as const)]);
  return { client, admitted: first === 'created', close: first === 'closed' ? await client.closed : null };
}

/** Offers that are never answered back: their peers are closed after each test. */
const peers: WebRtcTestClient[] = [];

async function postOffer(t: TestServer, key: string): Promise<{ status: number; body: any; callId: string | null }> {
  const peer = new WebRtcTestClient();
  peers.push(peer);
  const sdp = await peer.offer();
  const res = await fetch(`${t.baseUrl}/v1/realtime/calls`, {
    method: 'POST',
    body: sdp,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/sdp' },
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text.startsWith('{') ? JSON.parse(text) : text,
    callId: res.headers.get('location')?.split('/').pop() ?? null,
  };
}

const hangUp = (t: TestServer, key: string, callId: string) =>
  fetch(`${t.baseUrl}/v1/realtime/calls/${callId}/hangup`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } });

/**
 * Issue 33, defects 1 and 3, on the real server: one key cannot take every realtime slot (the last
 * slot of six is kept for a key holding none, over the WebSocket and WebRTC alike), calls that never
 * connect count apart, idle sessions give their slot back at the idle timeout, and a hang-up frees
 * the slot of a call that never connected at once (a second one is 404). The capacity is fixed at
 * six (what the automatic capacity gives on 2 cores) and the load guards are out of reach, so the
 * test does not depend on this machine or its load.
 */
describe('realtime admission is fair across keys (issue 33, real server)', function () {
  this.timeout(120_000);
  let t: TestServer;
  const clock = new ManualClock();
  const registry = () => t.server.services.get(REALTIME_TOKENS.SessionRegistry);
  const open: RealtimeClient[] = [];
  before(async () => {
    t = await startTestServer({
      clock,
      env: {
        SVC_REALTIME_CAPACITY: '6',
        SVC_REALTIME_MAX_SESSIONS_PER_KEY: '10',
        // The load guards out of reach: what is tested is the count and its fair share, not this machine's load.
        SVC_REALTIME_MAX_RECOGNIZER_BACKLOG_MS: '600000',
        SVC_REALTIME_MAX_EVENT_LOOP_LAG_MS: '600000',
      },
    });
  });
  afterEach(async () => {
    await Promise.all([...open.splice(0).map((c) => c.close()), ...peers.splice(0).map((p) => p.close())]);
    for (let i = 0; i < 100 && registry().localSessions() > 0; i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(async () => t?.close());

  it('key A opening 10 idle sessions gets 5; the 1013 says why; key B is admitted; at the idle timeout the slots come back', async () => {
    const keyB = await t.createApiKey('B');
    const a = [];
    for (let i = 0; i < 10; i++) a.push(await idleSession(t, t.apiKey));
    open.push(...a.map((s) => s.client));
    expect(a.filter((s) => s.admitted)).to.have.length(5);
    const refusal = a.find((s) => !s.admitted)!.close!;
    expect(refusal.code).to.equal(1013);
    expect(refusal.reason).to.equal('server nearly full: this key holds 5 of 5 sessions, the last 1 of 6 kept for other keys; retry later');
    const b = await idleSession(t, keyB);
    open.push(b.client);
    expect(b.admitted, `key B: ${JSON.stringify(b.close)}`).to.equal(true);
    expect(registry().localSessions()).to.equal(6);
    // Sessions that never speak hold their slot until the idle timeout (5 minutes), then give it back.
    clock.advance(300_000);
    for (const s of [...a.filter((x) => x.admitted), b]) expect((await s.client.closed).code).to.equal(1000);
    for (let i = 0; i < 100 && registry().localSessions() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(registry().localSessions()).to.equal(0);
  });

  it('over WebRTC: calls that never connect count apart (a key gets 2 at a time), so they cannot fill the server; another key gets in', async () => {
    const keyB = await t.createApiKey('B2');
    // Posted together: the offers being answered count too, so exactly two get through.
    const offers = await Promise.all([postOffer(t, t.apiKey), postOffer(t, t.apiKey), postOffer(t, t.apiKey)]);
    expect(offers.map((o) => o.status).sort(), JSON.stringify(offers.map((o) => o.body))).to.deep.equal([201, 201, 429]);
    const [first, second] = offers.filter((o) => o.status === 201) as [(typeof offers)[0], (typeof offers)[0]];
    const third = offers.find((o) => o.status === 429)!;
    expect(third.body.error.type).to.equal('concurrency_limit_exceeded');
    expect(third.body.error.message).to.match(/2 calls that have not connected yet/);
    // A's WebSocket sessions fill what the reserve leaves it; B still gets a call.
    for (let i = 0; i < 3; i++) open.push((await idleSession(t, t.apiKey)).client);
    expect(registry().localSessions()).to.equal(5);
    const b = await postOffer(t, keyB);
    expect(b.status, JSON.stringify(b.body)).to.equal(201);
    for (const call of [first, second, b]) expect((await hangUp(t, call === b ? keyB : t.apiKey, call.callId!)).status).to.equal(200);
  });

  it('hanging up a call that never connected frees its slot at once; hanging it up again is 404 call_not_found', async () => {
    const call = await postOffer(t, t.apiKey);
    expect(call.status).to.equal(201);
    expect(registry().localSessions()).to.equal(1);
    const calls = t.server.services.get(SERVER_TOKENS.RealtimeCalls)!;
    const hungUp = await hangUp(t, t.apiKey, call.callId!);
    expect(hungUp.status).to.equal(200);
    expect(await hungUp.json()).to.deep.equal({});
    expect(registry().localSessions(), 'the slot is free when the hang-up answers').to.equal(0);
    expect(calls.activeCalls()).to.equal(0);
    const again = await hangUp(t, t.apiKey, call.callId!);
    expect(again.status).to.equal(404);
    expect(((await again.json()) as { error: { type: string } }).error.type).to.equal('call_not_found');
  });
});
