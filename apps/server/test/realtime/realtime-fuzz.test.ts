import { expect } from 'chai';
import { RealtimeClient, openSession, sleep, takeViolations } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

/** Small seeded PRNG (mulberry32) so a failing run can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = [
  'input_audio_buffer.append',
  'input_audio_buffer.commit',
  'input_audio_buffer.clear',
  'conversation.item.create',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'conversation.item.delete',
  'response.create',
  'response.cancel',
];

type Frame = { text: string; mustErrorId: string | null; mustErrorJson: boolean };

/** One random frame; `mustErrorId` is set when the spec requires an error event for it. */
function randomFrame(r: () => number, n: number): Frame {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const id = `fz_${n}`;
  const junk = (): unknown =>
    pick([null, true, 42, -1, 1e308, 'x', '', 'A'.repeat(Math.floor(r() * 300)), [], [1, 'a'], {}, { a: { b: [null] } }]);
  const roll = r();
  if (roll < 0.08)
    return {
      text: pick(['{', '}', '{"type":', 'not json', '[1,2', '"unterminated', '\u0000', '{"type":"response.create",}']),
      mustErrorId: null,
      mustErrorJson: true,
    };
  if (roll < 0.14) return { text: JSON.stringify(pick([null, 5, 'str', [1, 2], true])), mustErrorId: null, mustErrorJson: false };
  if (roll < 0.2) return { text: JSON.stringify({ event_id: id, foo: junk() }), mustErrorId: id, mustErrorJson: false };
  if (roll < 0.26)
    return {
      text: JSON.stringify({
        type: pick(['nope', 'session.create', 'output_audio_buffer.clear', 'transcription_session.update', '', 'RESPONSE.CREATE']),
        event_id: id,
      }),
      mustErrorId: id,
      mustErrorJson: false,
    };
  if (roll < 0.3) return { text: JSON.stringify({ type: junk(), event_id: id }), mustErrorId: id, mustErrorJson: false };
  if (roll < 0.35)
    return { text: JSON.stringify({ type: pick(TYPES), event_id: id, unexpected_field: junk() }), mustErrorId: id, mustErrorJson: false };
  // A known event with random (often wrong) fields: an error may or may not be due.
  const type = pick(TYPES);
  const event: Record<string, unknown> = { type, event_id: id };
  switch (type) {
    case 'input_audio_buffer.append':
      event.audio = pick([Buffer.alloc(Math.floor(r() * 4800)).toString('base64'), 'bad base64!', junk(), undefined]);
      break;
    case 'conversation.item.create':
      event.item = pick([
        // (`system` ends the session by design; it has its own test.)
        {
          type: 'message',
          role: pick(['user', 'assistant', 'tool', junk()]),
          content: pick([[{ type: 'input_text', text: 'hi' }], [{ type: 'text', text: 'yo' }], junk()]),
        },
        { type: 'function_call', call_id: pick(['c1', junk()]), name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: pick(['ok', junk()]) },
        { type: pick(['message', 'reasoning', junk()]), id: pick([`i${n % 7}`, junk()]) },
        junk(),
      ]);
      if (r() < 0.3) event.previous_item_id = pick([`i${n % 5}`, null, junk()]);
      break;
    case 'conversation.item.retrieve':
    case 'conversation.item.delete':
      event.item_id = pick([`i${n % 7}`, junk(), undefined]);
      break;
    case 'conversation.item.truncate':
      Object.assign(event, {
        item_id: pick([`i${n % 7}`, junk()]),
        content_index: pick([0, -1, junk()]),
        audio_end_ms: pick([0, 100, -5, junk()]),
      });
      break;
    case 'response.create':
      if (r() < 0.5)
        event.response = pick([
          junk(),
          { instructions: junk() },
          { max_output_tokens: pick([1, 0, 'inf', junk()]) },
          { metadata: junk() },
          { input: junk() },
        ]);
      break;
    case 'response.cancel':
      if (r() < 0.5) event.response_id = junk();
      break;
  }
  return { text: JSON.stringify(event), mustErrorId: null, mustErrorJson: false };
}

describe('realtime e2e: fuzzing with 10,000 random and malformed events', function () {
  this.timeout(120_000);
  let s: RealtimeTestServer;
  before(async () => {
    // 2,400 frames per session in one go is a flood by the default inbound budget (1000-frame burst,
    // realtime-inbound-flood.test.ts): this test is about what each frame holds, so it lifts the budget.
    s = await startRealtimeServer({
      env: { SVC_REALTIME_MAX_SESSIONS_PER_KEY: '8', SVC_REALTIME_QUOTA: '', SVC_REALTIME_INBOUND_EVENTS_PER_SEC: '100000' },
    });
  });
  after(async () => s?.close());

  it('stays up, answers every event that requires it with an error, and leaks no sessions', async () => {
    const r = rng(0x5eed);
    const SESSIONS = 4;
    const PER_SESSION = 2400;
    let sent = 0;
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, sessionIndex) => {
        const { client } = await openSession(s.wsUrl, s.apiKey, { truncation: 'disabled' });
        const mustError = new Set<string>();
        let mustErrorJson = 0;
        for (let i = 0; i < PER_SESSION; i++) {
          const frame = randomFrame(r, sessionIndex * PER_SESSION + i);
          client.ws.send(frame.text);
          sent++;
          if (frame.mustErrorId) mustError.add(frame.mustErrorId);
          if (frame.mustErrorJson) mustErrorJson++;
          if (i % 200 === 0) await sleep(1);
        }
        client.send({ type: 'conversation.item.retrieve', item_id: 'the-end', event_id: 'end' });
        await client.until('error', 60_000).then(async function waitEnd(found): Promise<void> {
          if (found.event.error.event_id !== 'end') return client.until('error', 60_000).then(waitEnd);
        });
        expect(client.closeInfo, 'the session stays open').to.equal(null);
        const errors = client.events.filter((e) => e.type === 'error');
        const answered = new Set(errors.map((e) => e.error.event_id));
        const missing = [...mustError].filter((id) => !answered.has(id));
        expect(missing, 'events that required an error').to.deep.equal([]);
        expect(errors.filter((e) => e.error.code === 'invalid_json')).to.have.length(mustErrorJson);
        for (const e of errors) expect(e.error).to.have.all.keys('type', 'code', 'message', 'param', 'event_id');
        await client.close();
      }),
    );
    // Invalid session.update frames end their sessions; each must say why first.
    for (let i = 0; i < 16 * 25; i++) {
      const client = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey });
      client.send({
        type: 'session.update',
        event_id: `su_${i}`,
        session: randomFrame(r, i).text.length % 2 ? { tracing: 'auto' } : 'not an object',
      });
      sent++;
      const event = await client.next();
      expect(event.type).to.equal('error');
      expect((await client.closed).code).to.equal(1000);
    }
    expect(sent).to.be.at.least(10_000);
    expect(takeViolations()).to.deep.equal([]);

    // No leaked slots: the per-key cap (8) can be filled again, and the server still works.
    await sleep(100);
    const again = await Promise.all(Array.from({ length: 8 }, () => openSession(s.wsUrl, s.apiKey)));
    again[0]!.client.send({ type: 'response.create' });
    expect((await again[0]!.client.until('response.done')).event.response.status).to.equal('completed');
    for (const { client } of again) await client.close();
    const health = await fetch(`${s.baseUrl}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(health.status).to.equal(200);
    await sleep(50);
    expect(s.activeSessions()).to.equal(0);
  });
});
