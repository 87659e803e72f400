import { expect } from 'chai';
import { request } from 'node:http';
import { ManualClock } from '../helpers/manual-clock.js';
import { RealtimeClient, openSession, takeViolations, sleep } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

const configure = {
  type: 'session.update',
  session: { model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
};

async function mint(s: RealtimeTestServer, body: unknown = {}, apiKey = s.apiKey): Promise<{ status: number; json: any }> {
  const res = await fetch(`${s.baseUrl}/v1/realtime/client_secrets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe('realtime e2e: transport, authentication, client secrets and close codes', function () {
  this.timeout(30_000);
  let s: RealtimeTestServer;
  const clock = new ManualClock();
  before(async () => {
    s = await startRealtimeServer({ clock, env: { SVC_REALTIME_MAX_SESSIONS: '6', SVC_REALTIME_MAX_SESSIONS_PER_KEY: '3' } });
  });
  after(async () => s?.close());
  afterEach(() => expect(takeViolations()).to.deep.equal([]));

  describe('POST /v1/realtime/client_secrets', () => {
    it('mints a realtime.client_secret valid 600 s by default, ignoring a session object', async () => {
      const { status, json } = await mint(s, { session: { type: 'realtime', model: 'something-else', instructions: 'x' } });
      expect(status).to.equal(200);
      expect(Object.keys(json).sort()).to.deep.equal(['expires_at', 'object', 'session', 'value']);
      expect(json.object).to.equal('realtime.client_secret');
      expect(json.value).to.match(/^svc-eph-/);
      expect(json.expires_at).to.equal(Math.floor(clock.now() / 1000) + 600);
      expect(json.session).to.deep.equal({ id: json.session.id, object: 'realtime.session' });
      expect(json.session.id).to.match(/^sess_/);
    });

    it('accepts expires_after.seconds 10 and 7200 and refuses 9, 7201 and non-integers with 400', async () => {
      expect((await mint(s, { expires_after: { seconds: 10 } })).json.expires_at).to.equal(Math.floor(clock.now() / 1000) + 10);
      expect((await mint(s, { expires_after: { seconds: 7200 } })).json.expires_at).to.equal(Math.floor(clock.now() / 1000) + 7200);
      for (const seconds of [9, 7201, 12.5, 'ten']) {
        const { status, json } = await mint(s, { expires_after: { seconds } });
        expect(status, String(seconds)).to.equal(400);
        expect(json.error.message).to.be.a('string');
      }
    });

    it('requires an API key', async () => {
      expect((await mint(s, {}, 'svc-not-a-key')).status).to.equal(401);
    });
  });

  describe('WebSocket upgrade', () => {
    it('answers other paths with 404 and upgrades /v1/realtime (101) with a Bearer key', async () => {
      const port = new URL(s.baseUrl).port;
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({
          host: '127.0.0.1',
          port,
          path: '/v1/realtime-nope',
          headers: {
            Connection: 'Upgrade',
            Upgrade: 'websocket',
            'Sec-WebSocket-Version': '13',
            'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
            Authorization: `Bearer ${s.apiKey}`,
          },
        });
        req.on('response', (res) => resolve(res.statusCode!));
        req.on('upgrade', (res) => resolve(res.statusCode!));
        req.on('error', reject);
        req.end();
      });
      expect(status).to.equal(404);
      const client = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey });
      await client.opened;
      await client.close();
    });

    it('sends nothing before the first session.update, then answers session.created', async () => {
      const client = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey });
      await client.opened;
      await client.expectQuiet(300);
      client.send(configure);
      expect((await client.next()).type).to.equal('session.created');
      await client.close();
    });

    it('holds events sent before session.update (even malformed ones) and answers them after session.created', async () => {
      const client = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey });
      await client.opened;
      client.send({
        type: 'conversation.item.create',
        event_id: 'early_item',
        item: { type: 'message', role: 'user', id: 'early', content: [{ type: 'input_text', text: 'hi' }] },
      });
      client.ws.send('{broken');
      await client.expectQuiet(300);
      client.send(configure);
      expect((await client.next()).type).to.equal('session.created');
      // In arrival order: the item first, then the malformed frame's error.
      const second = await client.next();
      expect(second.type).to.equal('conversation.item.added');
      expect(second.item.id).to.equal('early');
      const third = await client.next();
      expect(third.type).to.equal('error');
      expect(third.error.code).to.equal('invalid_json');
      await client.close();
    });

    it('echoes the realtime subprotocol when offered and never echoes the secret protocol', async () => {
      const withBearer = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey, protocols: ['realtime'] });
      await withBearer.opened;
      expect(withBearer.ws.protocol).to.equal('realtime');
      await withBearer.close();
      const { json } = await mint(s);
      const ephemeral = RealtimeClient.connect(s.wsUrl, { protocols: ['realtime', `svc-client-secret.${json.value}`] });
      await ephemeral.opened;
      expect(ephemeral.ws.protocol).to.equal('realtime');
      ephemeral.send(configure);
      const created = await ephemeral.next();
      expect(created.type).to.equal('session.created');
      expect(created.session.id).to.equal(json.session.id);
      await ephemeral.close();
    });

    it('uses ?model= when session.model is omitted', async () => {
      const client = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey, query: '?model=svc-realtime' });
      client.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } });
      const created = await client.next();
      expect(created.type).to.equal('session.created');
      expect(created.session.model).to.equal('svc-realtime');
      await client.close();
    });
  });

  it('the svc_realtime_sessions gauge counts open sessions', async () => {
    const gauge = async () => {
      const text = await (await fetch(`${s.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${s.apiKey}` } })).text();
      return Number(/^svc_realtime_sessions (\d+)$/m.exec(text)?.[1] ?? NaN);
    };
    const before = await gauge();
    const { client } = await openSession(s.wsUrl, s.apiKey);
    expect(await gauge()).to.equal(before + 1);
    await client.close();
    await sleep(50);
    expect(await gauge()).to.equal(before);
  });

  describe('close codes', () => {
    it('3000: missing key, invalid API key, unknown ephemeral key', async () => {
      for (const options of [{}, { apiKey: 'svc-invalid' }, { protocols: ['realtime', 'svc-client-secret.svc-eph-unknown'] }]) {
        const client = RealtimeClient.connect(s.wsUrl, options);
        expect((await client.closed).code, JSON.stringify(options)).to.equal(3000);
        expect(client.events).to.deep.equal([]);
      }
    });

    it('3000: an expired ephemeral key', async () => {
      const { json } = await mint(s, { expires_after: { seconds: 10 } });
      clock.advance(10_001);
      const client = RealtimeClient.connect(s.wsUrl, { protocols: ['realtime', `svc-client-secret.${json.value}`] });
      expect((await client.closed).code).to.equal(3000);
    });

    it('4009: a second connection with an ephemeral key whose session is active', async () => {
      const { json } = await mint(s);
      const protocols = ['realtime', `svc-client-secret.${json.value}`];
      const first = RealtimeClient.connect(s.wsUrl, { protocols });
      first.send(configure);
      await first.next();
      const second = RealtimeClient.connect(s.wsUrl, { protocols });
      expect((await second.closed).code).to.equal(4009);
      expect(first.closeInfo).to.equal(null);
      await first.close();
    });

    it('1013: over the per-key cap, and over the global cap', async () => {
      const mine = await Promise.all([0, 1, 2].map(() => openSession(s.wsUrl, s.apiKey)));
      const fourth = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey });
      expect((await fourth.closed).code).to.equal(1013);
      const otherKey = await s.createApiKey('other');
      const thirdKey = await s.createApiKey('third');
      const others = await Promise.all([0, 1, 2].map(() => openSession(s.wsUrl, otherKey)));
      const overGlobal = RealtimeClient.connect(s.wsUrl, { apiKey: thirdKey });
      const closed = await overGlobal.closed;
      expect(closed.code).to.equal(1013);
      expect(closed.reason).to.contain('retry later');
      for (const { client } of [...mine, ...others]) await client.close();
      await sleep(50);
      const again = await openSession(s.wsUrl, thirdKey);
      await again.client.close();
    });
  });
});
