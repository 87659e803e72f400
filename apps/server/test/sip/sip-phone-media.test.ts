// @test-tier light: a real SIP phone's media in real time
import { expect } from 'chai';
import type { RealtimeServerEvent } from '@svc/core';
import { waitUntil } from '../helpers/wait-until.js';
import { nextCall, sipServerForSuite } from '../helpers/sip-server.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { RealtimeClient } from '../helpers/realtime-client.js';
import { duringCall, loudest, placeCall, widebandRate } from '../helpers/baresip.js';

describe('SIP phone calls: key presses (RFC 4733) and Opus from a real phone (baresip)', function () {
  this.timeout(120_000);
  const sip = sipServerForSuite();

  it('the keys the phone presses reach the call, and the application joined with ?call_id=, as input_audio_buffer.dtmf_event_received, once each, in order', async () => {
    const t = sip.t;
    const answered = nextCall(t, 15_000);
    const phone = await placeCall({ host: '127.0.0.1', port: t.server.sip!.server.address.port, microphone: new Int16Array(8000 * 40) });
    await duringCall(phone, async () => {
      const call = await answered;
      const events: RealtimeServerEvent[] = [];
      call.onEvent((e) => {
        if (e.type === 'input_audio_buffer.dtmf_event_received') events.push(e);
      });
      // the application's view: a WebSocket joined to the live call (OpenAI's ?call_id=), same key
      const joined = RealtimeClient.connect(t.wsUrl, { apiKey: sip.keySecret, query: `?call_id=${call.id}` });
      await joined.opened;
      await phone.printed(/^SIP\/2\.0 200 OK[\s\S]*telephone-event\/8000/m, 15_000);
      await waitUntil(() => call.rtp.packetsReceived > 0, "the phone's first RTP packet", 15_000);
      const before = Math.floor(Date.now() / 1000);
      // one key at a time, each ended before the next (as a person presses them)
      for (const key of ['1', '2', '3', '#', '9', '*', '0']) {
        await phone.command('sndcode', key);
        await waitUntil(() => events.length > 0 && events.at(-1)!.event === key, `key ${key}`, 5_000);
      }
      // the same key twice in a row is two presses
      await phone.command('sndcode', '5');
      await waitUntil(() => events.filter((e) => e.event === '5').length === 1, 'key 5', 5_000);
      await phone.command('sndcode', '5');
      await waitUntil(() => events.filter((e) => e.event === '5').length === 2, 'key 5 again', 5_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(events.map((e) => e.event)).to.deep.equal(['1', '2', '3', '#', '9', '*', '0', '5', '5']);
      for (const e of events) {
        expect(Object.keys(e).sort()).to.deep.equal(['event', 'event_id', 'received_at', 'type']);
        expect(e.event_id).to.be.a('string');
        expect(e.received_at).to.be.within(before, Math.ceil(Date.now() / 1000));
      }
      expect(new Set(events.map((e) => e.event_id)).size, 'event ids are unique').to.equal(events.length);
      const joinedKeys = joined.events.filter((e) => e.type === 'input_audio_buffer.dtmf_event_received');
      expect(
        joinedKeys.map((e) => e.event_id),
        'the joined WebSocket hears every key press',
      ).to.deep.equal(events.map((e) => e.event_id));
      await joined.close();
    });
  });

  it('a phone offering Opus gets Opus: its speech is heard at 48 kHz and the spoken reply comes back in Opus', async () => {
    const t = sip.t;
    const sentence = librivoxSentences()[0]!;
    const microphone = new Int16Array(sentence.samples.length * 3 + 48000 * 40);
    microphone.set(widebandRate(sentence.samples));
    const answered = nextCall(t, 15_000);
    const phone = await placeCall({
      host: '127.0.0.1',
      port: t.server.sip!.server.address.port,
      microphone,
      microphoneRate: 48000,
      codecs: ['opus', 'PCMU'],
    });
    await duringCall(phone, async () => {
      const call = await answered;
      expect(call.rtp.codec).to.equal('opus');
      expect(call.media.inputSampleRate).to.equal(48000);
      await phone.printed(/^SIP\/2\.0 200 OK[\s\S]*a=rtpmap:\d+ opus\/48000\/2/m, 15_000);
      const types: string[] = [];
      call.onEvent((e) => types.push(e.type));
      await waitUntil(() => types.includes('input_audio_buffer.speech_stopped'), 'speech_stopped (the Opus audio heard as speech)', 40_000);
      await waitUntil(() => types.includes('output_audio_buffer.stopped'), 'a whole spoken reply', 60_000);
      expect(call.rtp.packetsUndecodable, 'every Opus packet from the phone decoded').to.equal(0);
      expect(call.rtp.packetsSent).to.be.above(10);
      await phone.stop();
      const heard = phone.heard();
      expect(heard.length, 'the phone recorded what it heard').to.be.above(8000);
      expect(loudest(heard), 'the loudest 200 ms the phone heard (decoded from Opus)').to.be.above(500);
    });
  });
});
