// @test-tier light: a real SIP phone's call in real time
import { expect } from 'chai';
import type { SipCall } from '@svc/adapters-sip';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { waitUntil } from '../helpers/wait-until.js';
import { nextCall, sipServerForSuite } from '../helpers/sip-server.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { loudest, PHONE_CALL_CLOSED, placeCall, telephoneRate } from '../helpers/baresip.js';

/** Resolves with the first session event of `type` on the call. */
function eventOf(call: SipCall, type: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms`)), timeoutMs);
    call.onEvent((e) => {
      if (e.type !== type) return;
      clearTimeout(deadline);
      resolve();
    });
  });
}

describe('SIP phone calls: a real SIP phone (baresip) calls the realtime engine over loopback', function () {
  this.timeout(120_000);
  const sip = sipServerForSuite();

  it('answers the call, hears a recorded sentence, and the phone hears a spoken reply; the phone hangs up and the slot is freed', async () => {
    const sentence = librivoxSentences()[0]!;
    // the sentence, then silence: the voice activity detector hears the turn end, and the phone
    // (which hangs up at the end of its file) stays on for the reply
    const microphone = new Int16Array(sentence.samples.length / 2 + 8000 * 40);
    microphone.set(telephoneRate(sentence.samples));
    const { port } = sip.t.server.sip!.server.address;
    const answered = nextCall(sip.t, 15_000);
    const phone = await placeCall({ host: '127.0.0.1', port, microphone });
    try {
      const call = await answered;
      const spoke = eventOf(call, 'input_audio_buffer.speech_stopped', 30_000);
      const started = eventOf(call, 'output_audio_buffer.started', 40_000);
      const replied = eventOf(call, 'output_audio_buffer.stopped', 60_000);
      await spoke;
      const stoppedAt = performance.now();
      await started;
      console.log(`      end of speech (speech_stopped) to the first reply packet: ${Math.round(performance.now() - stoppedAt)} ms`);
      await replied;
      expect(call.rtp.packetsReceived, 'RTP packets from the phone').to.be.above(50);
      expect(call.rtp.packetsSent, 'reply RTP packets to the phone').to.be.above(10);
      const ended = new Promise<string>((resolve) => call.onEnded((ending) => resolve(ending)));
      await phone.stop();
      expect(await ended).to.equal('hangup');
      expect(sip.t.server.sip!.server.activeCalls()).to.equal(0);
      const heard = phone.heard();
      // the reply is speech: well above the silence (and the G.711 idle pattern) around it
      expect(heard.length, 'the phone recorded what it heard').to.be.above(8000);
      expect(loudest(heard), 'the loudest 200 ms the phone heard').to.be.above(500);
    } catch (err) {
      console.log(phone.output().slice(-4000));
      throw err;
    } finally {
      await phone.stop();
      phone.cleanup();
    }
  });
});

describe('SIP phone calls over TCP (baresip)', function () {
  this.timeout(120_000);
  const sip = sipServerForSuite();

  it('a phone calling over TCP is answered, its audio arrives, and its hang-up ends the call', async () => {
    const answered = nextCall(sip.t, 15_000);
    const phone = await placeCall({
      host: '127.0.0.1',
      port: sip.t.server.sip!.server.address.port,
      microphone: new Int16Array(8000 * 40),
      tcp: true,
    });
    try {
      const call = await answered;
      await phone.printed(/^SIP\/2\.0 200 OK[\s\S]*transport=tcp/m, 15_000);
      const ended = new Promise<string>((resolve) => call.onEnded((ending) => resolve(ending)));
      await waitUntil(() => call.rtp.packetsReceived > 0, "the phone's first RTP packet", 15_000);
      await phone.stop();
      expect(await ended).to.equal('hangup');
      expect(call.rtp.packetsReceived).to.be.above(0);
    } catch (err) {
      console.log(phone.output().slice(-3000));
      throw err;
    } finally {
      await phone.stop();
      phone.cleanup();
    }
  });
});

describe('SIP phone calls: digest credentials and a hang-up from the service (baresip)', function () {
  this.timeout(120_000);
  const sip = sipServerForSuite({ SVC_SIP_USERNAME: 'pbx', SVC_SIP_PASSWORD: 'a-long-secret' });
  const microphone = new Int16Array(8000 * 40);

  it('a phone without the credentials is refused with 401 and no call starts', async () => {
    const phone = await placeCall({ host: '127.0.0.1', port: sip.t.server.sip!.server.address.port, microphone });
    try {
      await phone.printed(/SIP\/2\.0 401 Unauthorized/, 15_000);
      await phone.printed(/terminated|failed|401/i, 15_000);
      expect(sip.t.server.sip!.server.activeCalls()).to.equal(0);
    } finally {
      await phone.stop();
      phone.cleanup();
    }
  });

  it('a phone with them is answered; revoking the key makes the service hang up (BYE) and frees the slot', async () => {
    const answered = nextCall(sip.t, 15_000);
    const phone = await placeCall({
      host: '127.0.0.1',
      port: sip.t.server.sip!.server.address.port,
      microphone,
      auth: { username: 'pbx', password: 'a-long-secret' },
    });
    try {
      const call = await answered;
      const ended = new Promise<string>((resolve) => call.onEnded((ending) => resolve(ending)));
      await sip.t.server.services.get(SERVER_TOKENS.ManageApiKeys).revoke(sip.keyId);
      expect(await ended).to.equal('key_revoked');
      await phone.printed(/^BYE sip:\S+ SIP\/2\.0/m, 15_000);
      await phone.printed(PHONE_CALL_CLOSED, 15_000);
      expect(sip.t.server.sip!.server.activeCalls()).to.equal(0);
    } catch (err) {
      console.log(
        phone
          .output()
          .replace(/\[\d+:\d+:\d+\] audio=[^\n]*?\s{2,}/g, '')
          .slice(-4000),
      );
      throw err;
    } finally {
      await phone.stop();
      phone.cleanup();
    }
  });
});
