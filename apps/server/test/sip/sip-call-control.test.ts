// @test-tier light: real SIP calls that wait on signalling and timers
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import type { SipCall } from '@svc/adapters-sip';
import type { TestServer } from '../helpers/test-server.js';
import { nextCall, startSipServer } from '../helpers/sip-server.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { hasBaresip, PHONE_CALL_CLOSED, placeCall, rms, telephoneRate, type BaresipCall } from '../helpers/baresip.js';
import { RealtimeClient } from '../helpers/realtime-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

async function post(t: TestServer, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${t.baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

describe('SIP call control as OpenAI shapes it: webhook, accept/reject/refer/hangup, ?call_id= join (baresip, the real server)', function () {
  this.timeout(180_000);
  let started: Awaited<ReturnType<typeof startSipServer>> | null = null;
  const receiver = new WebhookReceiver();
  let openai: OpenAI;
  const phones: BaresipCall[] = [];

  before(async function () {
    if (!hasBaresip()) {
      console.log('      skipped: baresip is not installed (bash scripts/setup-test-sip.sh installs it)');
      this.skip();
    }
    const url = await receiver.listen();
    started = await startSipServer({
      SVC_SIP_WEBHOOK_URL: url,
      SVC_SIP_WEBHOOK_SECRET: SECRET,
      SVC_SIP_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    });
    openai = new OpenAI({ apiKey: started.keySecret, baseURL: `${started.t.baseUrl}/v1`, maxRetries: 0 });
  });

  afterEach(async () => {
    for (const phone of phones.splice(0)) {
      await phone.stop();
      phone.cleanup();
    }
  });

  after(async () => {
    await started?.t.close();
    if (started) rmSync(started.dataDir, { recursive: true, force: true });
    await receiver.close();
  });

  async function dial(microphone: Int16Array): Promise<BaresipCall> {
    const phone = await placeCall({ host: '127.0.0.1', port: started!.t.server.sip!.server.address.port, microphone });
    phones.push(phone);
    return phone;
  }

  it('an incoming call rings and is announced by a signed realtime.call.incoming; another key cannot see it; the owner accepts it, joins its events, and hangs up', async () => {
    const { t } = started!;
    const sentence = librivoxSentences()[0]!;
    const microphone = new Int16Array(sentence.samples.length / 2 + 8000 * 40);
    microphone.set(telephoneRate(sentence.samples));
    const seen = receiver.deliveries.length;
    const phone = await dial(microphone);
    try {
      const event = await receiver.nextEvent(SECRET, seen);
      const delivery = receiver.deliveries[seen]!;
      expect(delivery.headers['webhook-id']).to.match(/^wh_/);
      expect(event.object).to.equal('event');
      expect(event.id).to.match(/^evt_/);
      const callId = event.data.call_id;
      expect(callId).to.match(/^rtc_/);
      const names = event.data.sip_headers.map((h) => h.name);
      expect(names).to.include.members(['From', 'To', 'Call-ID', 'Contact']);
      await phone.printed(/SIP\/2\.0 180 Ringing/, 10_000);
      expect(t.server.sip!.server.activeCalls(), 'ringing: no session yet').to.equal(0);

      // a signature made with another secret is refused by the SDK: the test's verification can fail
      const forged = await openai.webhooks
        .unwrap(delivery.body, delivery.headers as Record<string, string>, `whsec_${randomBytes(32).toString('base64')}`)
        .catch((e: unknown) => e);
      expect(forged).to.be.instanceOf(Error);

      // another key: 404 for every action and for the join, exactly as for an unknown id
      for (const action of ['accept', 'reject', 'refer', 'hangup']) {
        const res = await post(
          t,
          `/v1/realtime/calls/${callId}/${action}`,
          t.apiKey,
          action === 'refer' ? { target_uri: 'sip:x@127.0.0.1' } : {},
        );
        expect(res.status, action).to.equal(404);
        expect(res.json.error.type).to.equal('call_not_found');
      }
      const foreignJoin = RealtimeClient.connect(t.wsUrl, { apiKey: t.apiKey, query: `?call_id=${callId}` });
      expect(await foreignJoin.opened.catch((e: Error) => e.message)).to.equal('HTTP 404');

      // an invalid configuration is refused as session.update would refuse it; the call still rings
      const invalid = await post(t, `/v1/realtime/calls/${callId}/accept`, started!.keySecret, { type: 'realtime', voice: 42 });
      expect(invalid.status).to.equal(400);
      expect(invalid.json.error.message).to.be.a('string');

      const answered = nextCall(t, 15_000);
      const acceptedAt = performance.now();
      await openai.realtime.calls.accept(callId, { type: 'realtime', instructions: 'You answer the phone. Be brief.' });
      const acceptMs = performance.now() - acceptedAt;
      await phone.printed(/SIP\/2\.0 200 OK/, 10_000);
      console.log(
        `      accept: ${Math.round(acceptMs)} ms for the HTTP answer, ${Math.round(performance.now() - acceptedAt)} ms to the phone's 200 OK`,
      );
      const call: SipCall = await answered;
      expect(call.id).to.equal(callId);
      const again = await post(t, `/v1/realtime/calls/${callId}/accept`, started!.keySecret, { type: 'realtime' });
      expect(again.status).to.equal(409);
      expect(again.json.error.type).to.equal('call_not_ringing');

      const joined = RealtimeClient.connect(t.wsUrl, { apiKey: started!.keySecret, query: `?call_id=${callId}` });
      await joined.opened;
      joined.send({ type: 'session.update', session: { type: 'realtime', instructions: 'You answer the phone. Be very brief.' } });
      const updated = await joined.until('session.updated', 10_000);
      expect(updated.event.session.instructions).to.equal('You answer the phone. Be very brief.');
      await joined.until('input_audio_buffer.speech_stopped', 40_000);
      await joined.until('response.done', 90_000);

      // an ephemeral key of the owner reaches only its own session: not this call's events, not its hang-up
      const secret = (await post(t, '/v1/realtime/client_secrets', started!.keySecret, {})).json.value as string;
      const ephemeralJoin = RealtimeClient.connect(t.wsUrl, {
        protocols: ['realtime', `svc-client-secret.${secret}`],
        query: `?call_id=${callId}`,
      });
      expect(await ephemeralJoin.opened.catch((e: Error) => e.message)).to.equal('HTTP 401');
      const ephemeralHangup = await post(t, `/v1/realtime/calls/${callId}/hangup`, secret);
      expect(ephemeralHangup.status).to.equal(404);
      expect(ephemeralHangup.json.error.type).to.equal('call_not_found');
      expect(call.isEnded, 'the call goes on').to.equal(false);

      const ended = new Promise<string>((resolve) => call.onEnded((ending) => resolve(ending)));
      await openai.realtime.calls.hangup(callId);
      expect(await ended).to.equal('hangup');
      await phone.printed(/^BYE sip:\S+ SIP\/2\.0/m, 15_000);
      expect((await joined.closed).code, 'the joined WebSocket closes normally when the call ends').to.equal(1000);
      await phone.printed(PHONE_CALL_CLOSED, 15_000);
      await phone.stop();
      const heard = phone.heard();
      const loudest = Math.max(
        0,
        ...Array.from({ length: Math.floor(heard.length / 1600) }, (_, i) => rms(heard.subarray(i * 1600, (i + 1) * 1600))),
      );
      expect(loudest, 'the loudest 200 ms the phone heard (the spoken reply)').to.be.above(500);
      expect((await post(t, `/v1/realtime/calls/${callId}/hangup`, started!.keySecret)).status, 'an ended call is gone').to.equal(404);
    } catch (err) {
      console.log(phone.output().slice(-4000));
      throw err;
    }
  });

  it('reject: the caller gets the status code the application chose', async () => {
    const { t } = started!;
    const seen = receiver.deliveries.length;
    const phone = await dial(new Int16Array(8000 * 20));
    const event = await receiver.nextEvent(SECRET, seen);
    const bad = await post(t, `/v1/realtime/calls/${event.data.call_id}/reject`, started!.keySecret, { status_code: 200 });
    expect(bad.status).to.equal(400);
    await openai.realtime.calls.reject(event.data.call_id, { status_code: 486 });
    await phone.printed(/SIP\/2\.0 486 Busy Here/, 10_000);
    expect(t.server.sip!.server.activeCalls()).to.equal(0);
  });

  it('refer: the phone is sent to another SIP address (here the service again, a second call); the first call ends as transferred', async () => {
    const { t } = started!;
    const seen = receiver.deliveries.length;
    const phone = await dial(new Int16Array(8000 * 60));
    try {
      const first = await receiver.nextEvent(SECRET, seen);
      const answered = nextCall(t, 15_000);
      await openai.realtime.calls.accept(first.data.call_id, { type: 'realtime' });
      const call = await answered;
      await phone.printed(/Call established|established/i, 10_000);
      const ended = new Promise<string>((resolve) => call.onEnded((ending) => resolve(ending)));
      const target = `sip:svc@127.0.0.1:${t.server.sip!.server.address.port}`;
      await openai.realtime.calls.refer(first.data.call_id, { target_uri: target });
      const second = await receiver.nextEvent(SECRET, seen + 1);
      expect(second.data.call_id).to.not.equal(first.data.call_id);
      await openai.realtime.calls.accept(second.data.call_id, { type: 'realtime' });
      expect(await ended).to.equal('transferred');
      expect(t.server.sip!.server.liveCalls().map((c) => c.id)).to.deep.equal([second.data.call_id]);
    } catch (err) {
      console.log(phone.output().slice(-5000));
      throw err;
    }
  });
});

describe('SIP call control routes (the real server, no phone)', function () {
  this.timeout(60_000);

  it('with WebRTC off, the phone calls answer /hangup themselves; the calls API needs an API key', async () => {
    const started = await startSipServer({ SVC_WEBRTC_ENABLED: 'false' });
    try {
      const { t, keySecret } = started;
      const hangup = await post(t, '/v1/realtime/calls/rtc_unknown/hangup', keySecret);
      expect(hangup.status).to.equal(404);
      expect(hangup.json.error.type).to.equal('call_not_found');
      const anonymous = await fetch(`${t.baseUrl}/v1/realtime/calls/rtc_unknown/accept`, { method: 'POST' });
      expect(anonymous.status).to.equal(401);
      const badRefer = await post(t, '/v1/realtime/calls/rtc_unknown/refer', keySecret, { target_uri: 'http://example.com' });
      expect(badRefer.status).to.equal(400);
      expect(badRefer.json.error.message).to.match(/target_uri/);
    } finally {
      await started.t.close();
      rmSync(started.dataDir, { recursive: true, force: true });
    }
  });
});
