import { expect } from 'chai';
import { RealtimeCallNotFoundError, type CallJoiner, type Principal, type RealtimeServerEvent } from '@svc/core';
import { sleep, startGateway, TestClient, type GatewayHarness } from './gateway-harness.js';

/** One live phone call of key_a, as the SIP adapter's directory would hold it: who joined, what they sent. */
class LiveCall {
  joiner: CallJoiner | null = null;
  readonly received: unknown[] = [];
  left = 0;

  join(callId: string, principal: Principal, joiner: CallJoiner) {
    if (callId !== 'rtc_live' || principal.apiKeyId !== 'key_a') throw new RealtimeCallNotFoundError(callId);
    this.joiner = joiner;
    return {
      handle: async (event: unknown) => void this.received.push(event),
      rejectFrame: (message: string) => void this.received.push({ rejected: message }),
      transportClosed: () => void this.left++,
    };
  }
}

describe('realtime WebSocket gateway: ?call_id= joins a live phone call', () => {
  let h: GatewayHarness;
  let call: LiveCall;
  beforeEach(async () => {
    call = new LiveCall();
    h = await startGateway({}, undefined, undefined, (id, principal, joiner) => call.join(id, principal, joiner));
  });
  afterEach(async () => h?.close());

  it("hears the call's events, reaches its session, and is closed with 1000 when the call ends; no session of its own", async () => {
    const client = TestClient.connect(`${h.url}?call_id=rtc_live`, { apiKey: 'svc-key-a' });
    await client.opened;
    expect(h.gateway.activeSessions(), 'a joined socket takes no session slot').to.equal(0);
    call.joiner!.send({ type: 'input_audio_buffer.speech_started', event_id: 'event_1' } as RealtimeServerEvent);
    await client.next('input_audio_buffer.speech_started');
    client.send({ type: 'response.create' });
    client.send('not json');
    await sleep(100);
    expect(call.received[0]).to.deep.equal({ type: 'response.create' });
    expect(call.received[1]).to.have.property('rejected');
    call.joiner!.callEnded('the caller hung up');
    const closed = await client.closed;
    expect(closed).to.deep.equal({ code: 1000, reason: 'the caller hung up' });
    await sleep(50);
    expect(call.left, 'the joiner left the call').to.equal(1);
  });

  it("another key's call, an unknown id: HTTP 404 call_not_found before the upgrade; a bad key: 3000", async () => {
    for (const [query, key] of [
      ['?call_id=rtc_live', 'svc-key-b'],
      ['?call_id=rtc_other', 'svc-key-a'],
    ] as const) {
      const client = TestClient.connect(`${h.url}${query}`, { apiKey: key });
      expect(String(await client.opened.catch((e: Error) => e))).to.contain('HTTP 404');
    }
    const stranger = TestClient.connect(`${h.url}?call_id=rtc_live`, { apiKey: 'svc-wrong' });
    expect((await stranger.closed).code).to.equal(3000);
    expect(call.joiner).to.equal(null);
  });

  it("an ephemeral key of the call's own key is refused with HTTP 401 before the upgrade: it opens its own session only", async () => {
    const secret = await h.mint('svc-key-a');
    for (const credentials of [{ protocols: ['realtime', `svc-client-secret.${secret}`] }, { apiKey: secret }]) {
      const client = TestClient.connect(`${h.url}?call_id=rtc_live`, credentials);
      expect(String(await client.opened.catch((e: Error) => e))).to.contain('HTTP 401');
    }
    expect(call.joiner, 'the call was never reached').to.equal(null);
  });

  it('a joiner that closes leaves the call on', async () => {
    const client = TestClient.connect(`${h.url}?call_id=rtc_live`, { apiKey: 'svc-key-a' });
    await client.opened;
    client.ws.close();
    await client.closed;
    await sleep(50);
    expect(call.left).to.equal(1);
  });
});
