import { expect } from 'chai';
import { InvalidApiKeyError, LargeBodyLimit, type RealtimeCalls } from '@svc/core';
import { largeBodiesPerKey } from '../../src/auth/large-body-limit.js';
import { realtimeCallRoutes } from '../../src/realtime/call-routes.js';
import { errorOf, startApp, type RunningApp } from '../support/http-app.js';

const OFFER = 'v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n';

/**
 * POST /v1/realtime/calls reads a multipart offer whose session part may be 14 MB (an inline avatar
 * photo) before admission decides: the per-key cap of large bodies in progress applies there too,
 * once the caller is known.
 */
describe('realtime call routes: large offers count in the per-key cap of large bodies', () => {
  let t: RunningApp;
  let placed = 0;
  let waiting: Array<() => void> = [];
  const answerAll = () => waiting.splice(0).forEach((answer) => answer());
  beforeEach(async () => {
    placed = 0;
    waiting = [];
    const calls: RealtimeCalls = {
      async create() {
        placed++;
        await new Promise<void>((resolve) => waiting.push(resolve));
        return { callId: 'rtc_1', answerSdp: 'v=0\r\n' };
      },
      async hangup() {},
    };
    t = await startApp({
      public: [
        realtimeCallRoutes({
          calls,
          authenticateCaller: async (secret) => {
            if (secret !== 'svc-eph-test') throw new InvalidApiKeyError();
            return { principal: { apiKeyId: 'key_a', name: 'a' }, secretSessionId: 'sess_1' };
          },
          maxOfferBytes: 64 * 1024,
          maxSessionBytes: 4 * 1024 * 1024,
          largeBodies: largeBodiesPerKey(new LargeBodyLimit(1)),
        }),
      ],
    });
  });
  afterEach(() => t.close());

  const offer = (session: string | null) => {
    const form = new FormData();
    form.set('sdp', OFFER);
    if (session !== null) form.set('session', session);
    return fetch(`${t.url}/v1/realtime/calls`, { method: 'POST', body: form, headers: { Authorization: 'Bearer svc-eph-test' } });
  };

  it('a second large offer of the key while one is answered: 429 before it is read; a small one passes; a bad key is 401 first', async () => {
    const large = JSON.stringify({ type: 'realtime', instructions: 'x'.repeat(1024 * 1024 + 10) });
    const first = offer(large);
    for (let i = 0; i < 200 && placed === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const refused = await offer(large);
    expect(refused.status).to.equal(429);
    expect(await errorOf(refused)).to.include({ type: 'concurrency_limit_exceeded' });
    expect(placed).to.equal(1);
    const stranger = await fetch(`${t.url}/v1/realtime/calls`, { method: 'POST', body: OFFER, headers: { Authorization: 'Bearer nope' } });
    expect(stranger.status).to.equal(401);
    const small = offer(null);
    for (let i = 0; i < 200 && placed < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(placed, 'a small offer is not counted').to.equal(2);
    answerAll();
    expect((await small).status).to.equal(201);
    expect((await first).status).to.equal(201);
  });
});
