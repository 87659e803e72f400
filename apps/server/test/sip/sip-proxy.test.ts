import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { waitUntil } from '../helpers/wait-until.js';
import type { TestServer } from '../helpers/test-server.js';
import { nextCall, startSipServer } from '../helpers/sip-server.js';
import { duringCall, hasBaresip, PHONE_CALL_CLOSED, placeCall } from '../helpers/baresip.js';
import { hasKamailio, startKamailio, type Proxy } from '../helpers/kamailio.js';

describe('SIP phone calls through a real proxy (kamailio, record-routing) from baresip', function () {
  this.timeout(120_000);
  let started: { t: TestServer; dataDir: string; keyId: string } | null = null;
  let proxy: Proxy | null = null;
  before(async function () {
    if (!hasBaresip() || !hasKamailio()) {
      console.log('      skipped: baresip or kamailio is not installed (bash scripts/setup-test-sip.sh installs them)');
      this.skip();
    }
    started = await startSipServer();
    proxy = await startKamailio({ host: '127.0.0.1', port: started.t.server.sip!.server.address.port });
  });
  after(async () => {
    await proxy?.stop();
    await started?.t.close();
    if (started) rmSync(started.dataDir, { recursive: true, force: true });
  });

  it("the call goes through the proxy (Via, Record-Route kept); the phone's BYE comes through it and ends the call", async () => {
    const t = started!.t;
    const answered = nextCall(t, 15_000);
    const phone = await placeCall({ host: '127.0.0.1', port: proxy!.port, microphone: new Int16Array(8000 * 40) });
    await duringCall(
      phone,
      async () => {
        const call = await answered;
        // the 200 OK the phone got came through the proxy, the proxy's Record-Route copied into it
        await phone.printed(new RegExp(`^SIP/2\\.0 200 OK[\\s\\S]*?Record-Route: <sip:127\\.0\\.0\\.1:${proxy!.port};lr`, 'm'), 15_000);
        await waitUntil(() => call.rtp.packetsReceived > 0, "the phone's first RTP packet", 15_000);
        const ended = new Promise<string>((resolve) => call.onEnded((ending) => resolve(ending)));
        await phone.stop();
        expect(await ended).to.equal('hangup');
        expect(proxy!.output()).to.match(/kamailio: BYE sip:svc@/);
        expect(t.server.sip!.server.activeCalls()).to.equal(0);
      },
      () => proxy!.output(),
    );
  });

  it("the service's own hang-up (BYE) follows the route set through the proxy to the phone", async () => {
    const t = started!.t;
    const answered = nextCall(t, 15_000);
    const phone = await placeCall({ host: '127.0.0.1', port: proxy!.port, microphone: new Int16Array(8000 * 40) });
    await duringCall(
      phone,
      async () => {
        const call = await answered;
        await phone.printed(/^SIP\/2\.0 200 OK/m, 15_000);
        await waitUntil(() => call.rtp.packetsReceived > 0, "the phone's first RTP packet", 15_000);
        const ended = new Promise<string>((resolve) => call.onEnded((ending) => resolve(ending)));
        await t.server.services.get(SERVER_TOKENS.ManageApiKeys).revoke(started!.keyId);
        expect(await ended).to.equal('key_revoked');
        // the proxy relayed our BYE (it carried a Route to it), and the phone got it and ended the call
        await waitUntil(
          () => /kamailio: BYE sip:phone\S*@[^\n]*route=\[<sip:127\.0\.0\.1:\d+;lr[=;>]/.test(proxy!.output()),
          'the BYE at the proxy',
          10_000,
        );
        await phone.printed(/^BYE sip:\S+ SIP\/2\.0/m, 15_000);
        await phone.printed(PHONE_CALL_CLOSED, 15_000);
        expect(t.server.sip!.server.activeCalls()).to.equal(0);
      },
      () => proxy!.output(),
    );
  });
});
