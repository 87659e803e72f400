// @test-tier serial: compares the first call's connect time with the second's
import { expect } from 'chai';
import { warmUpWebRtc } from '@svc/adapters-webrtc/media';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { WebRtcTestClient } from '../helpers/webrtc-client.js';

const SESSION = { type: 'realtime', model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } };

/**
 * A fresh server process with SVC_WEBRTC_WARM_UP=background sets up werift's once-per-process
 * state (its DTLS certificate, a whole call's cold code) at start, off the request path: its first
 * call then connects like the next ones (with the default, lazy, werift loads with the first call,
 * which pays that cold path). Before, the first call of a fresh server took ~5 s to connect on the loaded 2-core machine
 * (seen as ice_timeout at a 5 s connect timeout). The Node peer placing the calls is warmed first, so
 * what is measured is the server's side.
 */
describe('a fresh server warms WebRTC at start (SVC_WEBRTC_WARM_UP=background): its first call connects as fast as the next', function () {
  this.timeout(180_000);
  let server: ServerProcess;
  const clients: WebRtcTestClient[] = [];

  before(async () => {
    await warmUpWebRtc(); // this process's own first call is not the server's
    server = await startServerProcess({ env: { SVC_WEBRTC_CONNECT_TIMEOUT_MS: '20000', SVC_WEBRTC_WARM_UP: 'background' } });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
  });

  /** Offer posted -> session.created on the data channel (ICE, DTLS, SCTP and the channel all up), ms. */
  async function timedCall(): Promise<number> {
    const c = new WebRtcTestClient();
    clients.push(c);
    const started = performance.now();
    const res = await c.call(server.url, server.apiKey, SESSION);
    expect(res.status, res.body).to.equal(201);
    await c.waitForType('session.created', 20_000);
    return performance.now() - started;
  }

  it('says it warmed up, and its first call connects within 1.5 s and within 3x the second', async () => {
    const deadline = performance.now() + 60_000;
    while (!/WebRTC warmed up/.test(server.logs()) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(server.logs(), 'the warm-up log line').to.match(/WebRTC warmed up/);
    const first = await timedCall();
    const second = await timedCall();
    console.log('      connect (offer -> session.created):', JSON.stringify({ firstMs: Math.round(first), secondMs: Math.round(second) }));
    expect(first, 'first call connect (ms)').to.be.below(Math.max(1500, 3 * second));
  });
});
