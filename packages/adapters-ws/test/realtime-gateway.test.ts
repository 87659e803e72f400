import { expect } from 'chai';
import { request } from 'node:http';
import { ServiceUnavailableError, type RealtimeOutput, type RealtimeSessionRegistry } from '@svc/core';
import { CLOSE_CODES, type SessionContext } from '../src/index.js';
import { sleep, startGateway, TestClient, type GatewayHarness } from './gateway-harness.js';

const configure = {
  type: 'session.update',
  session: { model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
};

describe('realtime WebSocket gateway', () => {
  let h: GatewayHarness;
  afterEach(async () => h?.close());

  it('answers upgrades on any other path with HTTP 404', async () => {
    h = await startGateway();
    const port = new URL(h.url).port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        path: '/v1/other',
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      req.on('response', (res) => resolve(res.statusCode!));
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('error', reject);
      req.end();
    });
    expect(status).to.equal(404);
    const client = TestClient.connect(h.url.replace('/v1/realtime', '/v1/realtimex'), { apiKey: 'svc-key-a' });
    const err = await client.opened.catch((e: Error) => e);
    expect(String(err)).to.contain('HTTP 404');
  });

  it('accepts a Bearer API key, echoes the realtime subprotocol when offered, and runs a session', async () => {
    h = await startGateway();
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a', protocols: ['realtime'] });
    await client.opened;
    expect(client.ws.protocol).to.equal('realtime');
    await sleep(50);
    expect(client.events).to.deep.equal([]);
    client.send(configure);
    const created = await client.next('session.created');
    expect(created.session.model).to.equal('svc-realtime');
    expect(h.gateway.activeSessions()).to.equal(1);
    client.ws.close();
    await client.closed;
    await sleep(20);
    expect(h.gateway.activeSessions()).to.equal(0);
  });

  it('echoes no subprotocol when none is offered', async () => {
    h = await startGateway();
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await client.opened;
    expect(client.ws.protocol).to.equal('');
    client.ws.close();
  });

  it('closes with 3000 for a missing, malformed or invalid API key', async () => {
    h = await startGateway();
    const attempts: Record<string, string>[] = [{}, { Authorization: 'Basic abc' }, { Authorization: 'Bearer svc-wrong' }];
    for (const headers of attempts) {
      const client = TestClient.connect(h.url, { headers });
      expect((await client.closed).code, JSON.stringify(headers)).to.equal(3000);
      expect(client.events).to.deep.equal([]);
    }
    expect(h.gateway.activeSessions()).to.equal(0);
  });

  it('takes the model from ?model=', async () => {
    h = await startGateway();
    const client = TestClient.connect(`${h.url}?model=svc-realtime`, { apiKey: 'svc-key-a' });
    client.send({ type: 'session.update', session: { output_modalities: ['text'] } });
    expect((await client.next('session.created')).session.model).to.equal('svc-realtime');
    client.ws.close();
  });

  it('authenticates an ephemeral key in the svc-client-secret subprotocol, never echoing it; the session uses the minted id', async () => {
    h = await startGateway();
    const secret = await h.mint('svc-key-a');
    const client = TestClient.connect(h.url, { protocols: ['realtime', `svc-client-secret.${secret}`] });
    await client.opened;
    expect(client.ws.protocol).to.equal('realtime');
    client.send(configure);
    const created = await client.next('session.created');
    expect(created.session.id).to.equal(h.lastSessionId);
    client.ws.close();
  });

  it("takes an ephemeral key from OpenAI's openai-insecure-api-key subprotocol (the SDKs' browser sockets), never an API key", async () => {
    h = await startGateway();
    const secret = await h.mint('svc-key-a');
    const client = TestClient.connect(h.url, { protocols: ['realtime', `openai-insecure-api-key.${secret}`] });
    await client.opened;
    expect(client.ws.protocol).to.equal('realtime');
    client.send(configure);
    expect((await client.next('session.created')).session.id).to.equal(h.lastSessionId);
    client.ws.close();
    const apiKey = TestClient.connect(h.url, { protocols: ['realtime', 'openai-insecure-api-key.svc-key-a'] });
    expect((await apiKey.closed).code).to.equal(3000);
  });

  it('closes with 3000 for an invalid or expired ephemeral key', async () => {
    h = await startGateway();
    const unknown = TestClient.connect(h.url, { protocols: ['realtime', 'svc-client-secret.svc-eph-nope'] });
    expect((await unknown.closed).code).to.equal(3000);
    const secret = await h.mint('svc-key-a', 10);
    const realNow = Date.now;
    Date.now = () => realNow() + 11_000;
    try {
      const expired = TestClient.connect(h.url, { protocols: ['realtime', `svc-client-secret.${secret}`] });
      expect((await expired.closed).code).to.equal(3000);
    } finally {
      Date.now = realNow;
    }
  });

  it('closes a second concurrent connection with the same ephemeral key with 4009, and allows it again later', async () => {
    h = await startGateway();
    const secret = await h.mint('svc-key-a');
    const protocols = ['realtime', `svc-client-secret.${secret}`];
    const first = TestClient.connect(h.url, { protocols });
    await first.opened;
    const second = TestClient.connect(h.url, { protocols });
    expect(await second.closed).to.deep.equal({ code: 4009, reason: 'a session is already active for this ephemeral key' });
    first.ws.close();
    await first.closed;
    await sleep(20);
    const third = TestClient.connect(h.url, { protocols });
    await third.opened;
    third.send(configure);
    await third.next('session.created');
    third.ws.close();
  });

  it('closes with 1013 over the global and the per-key concurrency caps', async () => {
    h = await startGateway({ maxSessions: 3, maxSessionsPerKey: 2 });
    const a1 = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    const a2 = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await Promise.all([a1.opened, a2.opened]);
    const a3 = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    expect((await a3.closed).code).to.equal(1013);
    const b1 = TestClient.connect(h.url, { apiKey: 'svc-key-b' });
    await b1.opened;
    const b2 = TestClient.connect(h.url, { apiKey: 'svc-key-b' });
    expect(await b2.closed).to.deep.equal({ code: 1013, reason: 'max concurrency exceeded; retry later' });
    expect(h.gateway.activeSessions()).to.equal(3);
    for (const c of [a1, a2, b1]) c.ws.close();
  });

  it('asks the registry it is given before every session and releases the slot when the session ends', async () => {
    const claims: string[] = [];
    let live = 0;
    const registry: RealtimeSessionRegistry = {
      async admit(claim) {
        claims.push(`${claim.apiKeyId}:${claim.secretSessionId ?? '-'}`);
        if (claim.apiKeyId === 'key_b') return { admitted: false, refusal: 'duplicate_session' };
        live++;
        return { admitted: true, lease: { release: async () => void live-- } };
      },
      localSessions: () => live,
      close: async () => undefined,
    };
    h = await startGateway({ registry });
    const a = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await a.opened;
    expect(h.gateway.activeSessions()).to.equal(1);
    const b = TestClient.connect(h.url, { apiKey: 'svc-key-b' });
    expect((await b.closed).code).to.equal(4009);
    a.ws.close();
    await a.closed;
    await sleep(20);
    expect(live).to.equal(0);
    expect(claims).to.deep.equal(['key_a:-', 'key_b:-']);
  });

  it('closes with 1013 (retry later) when the registry or the key store does not answer, not 3000', async () => {
    const down: RealtimeSessionRegistry = {
      admit: async () => Promise.reject(new ServiceUnavailableError('redis')),
      localSessions: () => 0,
      close: async () => undefined,
    };
    h = await startGateway({ registry: down });
    const refused = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    expect(await refused.closed).to.deep.equal({ code: 1013, reason: 'the service is temporarily unavailable; retry later' });
    const invalid = TestClient.connect(h.url, { apiKey: 'svc-key-nope' });
    expect((await invalid.closed).code, 'an invalid key is still 3000').to.equal(3000);
  });

  it('answers malformed JSON and binary frames with an error event and keeps the connection', async () => {
    h = await startGateway();
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await client.opened;
    client.send('{not json');
    // Nothing is sent before session.created: the error for the early frame follows it.
    client.send(configure);
    await client.next('session.created');
    const err = await client.next('error');
    expect(client.events.map((e) => e.type).slice(0, 2)).to.deep.equal(['session.created', 'error']);
    expect(err.error).to.deep.include({ type: 'invalid_request_error', code: 'invalid_json' });
    expect(err.event_id).to.be.a('string');
    client.ws.send(Buffer.from([1, 2, 3]));
    expect((await client.next('error')).error.message).to.contain('Binary frames');
    client.send('[1, 2');
    expect((await client.next('error')).error.code).to.equal('invalid_json');
    client.ws.close();
  });

  it('refuses an event nested over 128 deep with invalid_json before parsing it, and keeps the connection', async () => {
    h = await startGateway();
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    client.send(configure);
    await client.next('session.created');
    // 2 MB of brackets: JSON.parse held the event loop (every session of the process) for about 1 s.
    client.send(`{"type":"conversation.item.create","item":${'['.repeat(999_000)}${']'.repeat(999_000)}}`);
    const err = await client.next('error');
    expect(err.error).to.deep.include({ type: 'invalid_request_error', code: 'invalid_json' });
    expect(err.error.message).to.contain('nested more than 128 levels deep');
    client.send({ type: 'input_audio_buffer.clear' });
    await client.next('input_audio_buffer.cleared');
    client.ws.close();
  });

  it('closes with 1009 when a frame exceeds the maximum frame size; a 1 MiB+ append within it gets an error event', async () => {
    h = await startGateway({ maxFrameBytes: 1_200_000 });
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    client.send(configure);
    await client.next('session.created');
    client.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(1_048_580) });
    expect((await client.next('error')).error.code).to.equal('audio_chunk_too_large');
    client.send({ type: 'input_audio_buffer.append', audio: 'A'.repeat(1_300_000) });
    expect((await client.closed).code).to.equal(1009);
  });

  it('drops a client that stops reading once the documented buffer limit is exceeded', async () => {
    let output: RealtimeOutput | null = null;
    h = await startGateway({ maxBufferedBytes: 256 * 1024 }, (ctx: SessionContext) => {
      output = ctx.output;
      return { handle: async () => undefined, rejectFrame: () => undefined, transportClosed: () => undefined };
    });
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await client.opened;
    (client.ws as any)._socket.pause();
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 400 && client.closeInfo === null; i++) {
      output!.send({ type: 'response.output_text.delta', event_id: `e${i}`, delta: big });
      await sleep(1);
    }
    // The server lets go of the session even though the client never reads again.
    for (let i = 0; i < 200 && h.gateway.activeSessions() > 0; i++) await sleep(50);
    expect(h.gateway.activeSessions()).to.equal(0);
    (client.ws as any)._socket.resume();
    const { code } = await Promise.race([client.closed, sleep(8000).then(() => ({ code: -1 }))]);
    expect([CLOSE_CODES.slow_reader, 1006]).to.include(code);
  });

  it('stops reading a client that sends faster than its events are processed', async () => {
    let outstanding = 0;
    let maxOutstanding = 0;
    let handled = 0;
    // 6 MB at once: over the default inbound byte budget, which is not what this test is about.
    h = await startGateway({ maxPendingEvents: 8, inboundBytesPerSecond: 64 * 1024 * 1024 }, () => ({
      handle: async () => {
        outstanding++;
        maxOutstanding = Math.max(maxOutstanding, outstanding);
        await sleep(2);
        outstanding--;
        handled++;
      },
      rejectFrame: () => undefined,
      transportClosed: () => undefined,
    }));
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await client.opened;
    const payload = JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(20_000) });
    for (let i = 0; i < 300; i++) client.send(payload);
    while (handled < 300) await sleep(20);
    expect(maxOutstanding).to.be.at.most(8 + 8);
    client.ws.close();
  });

  it('counts frames that fail to parse (and binary ones) in the pause too', async () => {
    let outstanding = 0;
    let maxOutstanding = 0;
    let rejected = 0;
    const slowly = async () => {
      outstanding++;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      await sleep(2);
      outstanding--;
      rejected++;
    };
    h = await startGateway({ maxPendingEvents: 8, inboundBytesPerSecond: 64 * 1024 * 1024 }, () => ({
      handle: slowly,
      rejectFrame: slowly,
      transportClosed: () => undefined,
    }));
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await client.opened;
    // 20 KB each, as in the test above: the pause acts between socket reads, not inside one.
    for (let i = 0; i < 150; i++) client.send(`{bad${' '.repeat(20_000)}`);
    for (let i = 0; i < 150; i++) client.ws.send(new Uint8Array(20_000));
    while (rejected < 300) await sleep(20);
    expect(maxOutstanding).to.be.at.most(8 + 8);
    client.ws.close();
  });

  for (const [what, options, frame] of [
    ['frames', { inboundEventsPerSecond: 20 }, '{bad'],
    [
      'bytes',
      { inboundBytesPerSecond: 1024, maxFrameBytes: 4096 },
      JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(3000) }),
    ],
  ] as const) {
    it(`a client over its inbound budget of ${what} gets one error rate_limit_exceeded, then close 1008, and nothing more is handled`, async () => {
      let handled = 0;
      h = await startGateway(options, () => ({
        handle: async () => void handled++,
        rejectFrame: () => void handled++,
        transportClosed: () => undefined,
      }));
      const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
      await client.opened;
      for (let i = 0; i < 500; i++) client.send(frame);
      const closed = await client.closed;
      expect(closed).to.deep.equal({ code: 1008, reason: 'inbound rate limit exceeded' });
      const errors = client.events.filter((e) => e.type === 'error');
      expect(errors).to.have.length(1);
      expect(errors[0]!.error).to.include({ type: 'invalid_request_error', code: 'rate_limit_exceeded', param: null });
      expect(errors[0]!.event_id).to.be.a('string');
      // The burst is 5 s of the rate (frames), or two maximal frames (bytes): nothing past it was handled.
      expect(handled).to.be.at.most(what === 'frames' ? 100 : 2);
      expect(handled).to.be.at.least(what === 'frames' ? 100 : 2);
      for (let i = 0; i < 100 && h.gateway.activeSessions() > 0; i++) await sleep(20);
      expect(h.gateway.activeSessions()).to.equal(0);
    });
  }

  it('a client within its budget (50 audio appends a second for 2 s, plus control events) is never closed', async () => {
    h = await startGateway({ inboundEventsPerSecond: 60 });
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await client.opened;
    client.send({
      type: 'session.update',
      session: { type: 'realtime', model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
    });
    const chunk = Buffer.alloc(960).toString('base64'); // 20 ms of 24 kHz PCM16
    for (let i = 0; i < 100; i++) {
      client.send({ type: 'input_audio_buffer.append', audio: chunk });
      if (i % 10 === 0) client.send({ type: 'input_audio_buffer.clear' });
      await sleep(20);
    }
    await sleep(200);
    expect(client.closeInfo).to.equal(null);
    expect(client.events.filter((e) => e.type === 'error')).to.deep.equal([]);
    client.ws.close();
  });

  it('close() ends every session with 1001 and refuses new upgrades', async () => {
    h = await startGateway();
    const client = TestClient.connect(h.url, { apiKey: 'svc-key-a' });
    await client.opened;
    await h.gateway.close();
    expect((await client.closed).code).to.equal(1001);
    expect(h.gateway.activeSessions()).to.equal(0);
  });
});
