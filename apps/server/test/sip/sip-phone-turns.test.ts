// @test-tier light: a real SIP phone speaks at real-time pace
import { expect } from 'chai';
import type { RealtimeServerEvent } from '@svc/core';
import { waitUntil } from '../helpers/wait-until.js';
import { nextCall, sipServerForSuite } from '../helpers/sip-server.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { duringCall, placeCall, rms, telephoneRate } from '../helpers/baresip.js';

/** 20 ms at 8 kHz: one G.711 packet, one frame of the phone's recording. */
const PACKET = 160;
/** A 20 ms frame this loud is speech, not silence (the SIP bench's level). */
const SOUND_RMS = 300;

/** Where the speech of an 8 kHz sentence ends (ms): the end of its last loud 20 ms frame. */
function speechEndMs(samples: Int16Array): number {
  let last = Math.floor(samples.length / PACKET) - 1;
  while (last > 0 && rms(samples.subarray(last * PACKET, (last + 1) * PACKET)) <= SOUND_RMS) last--;
  return ((last + 1) * PACKET) / 8;
}

describe("SIP phone calls: every turn of the SIP bench's call is heard and answered (baresip)", function () {
  this.timeout(240_000);
  const sip = sipServerForSuite();

  // The bench's first call: 0870, 12 s of silence, then 0880, whose turn went unheard (the 16 kHz
  // voice activity model on upsampled telephone speech); the phone records one continuous stream.
  it('hears the second sentence as a whole turn after 12 s of silence, and the phone records the reply after it', async () => {
    const t = sip.t;
    const [first, second] = [0, 1].map((k) => telephoneRate(librivoxSentences()[k]!.samples));
    const gap = new Int16Array(8000 * 12);
    // 150 s of silence after the second sentence: the phone hangs up when its file ends, and the reply
    // must have played whole by then (at load 22-25 it had not after 6 s, then after 30 s). The test
    // stops the phone as soon as the reply has played, so the silence costs nothing otherwise.
    const microphone = new Int16Array(first!.length + gap.length + second!.length + 8000 * 150);
    microphone.set(first!);
    microphone.set(second!, first!.length + gap.length);
    const secondEndMs = ((first!.length + gap.length) / 8000) * 1000 + speechEndMs(second!);
    const answered = nextCall(t, 15_000);
    const phone = await placeCall({ host: '127.0.0.1', port: t.server.sip!.server.address.port, microphone });
    await duringCall(phone, async () => {
      const call = await answered;
      const events: RealtimeServerEvent[] = [];
      // The second turn's reply, from the packet it started at to its end. (On a loaded machine the
      // first reply may not have started playing before the second sentence, which then cuts it.)
      const secondReply = { startPacket: -1, played: false };
      const commits = () => events.filter((e) => e.type === 'input_audio_buffer.committed').length;
      call.onEvent((e) => {
        events.push(e);
        if (commits() < 2) return;
        if (e.type === 'output_audio_buffer.started') secondReply.startPacket = call.rtp.packetsSent;
        if (e.type === 'output_audio_buffer.stopped' && secondReply.startPacket >= 0) secondReply.played = true;
      });
      const seen = () => events.map((e) => e.type).filter((type) => !type.endsWith('.delta'));
      await waitUntil(() => secondReply.played, 'the reply to the second sentence', 180_000).catch((err: Error) => {
        throw new Error(`${err.message}; events: ${seen().join(' ')}`);
      });
      const stops = events.filter((e) => e.type === 'input_audio_buffer.speech_stopped');
      expect(stops, 'two turns').to.have.length(2);
      expect(stops[1]!.audio_end_ms as number, 'the second turn ends where its speech does, not before').to.be.at.least(secondEndMs - 100);
      await phone.stop();
      // the stream is continuous (silence between replies), so a frame of the recording is a packet sent
      const heard = phone.heard();
      expect(heard.length / PACKET, 'the phone recorded one frame per packet sent').to.be.closeTo(call.rtp.packetsSent, 25);
      const from = secondReply.startPacket - 10;
      const sound = Array.from({ length: 60 }, (_, i) => rms(heard.subarray((from + i) * PACKET, (from + i + 1) * PACKET)));
      expect(Math.max(...sound), 'the second reply is in what the phone recorded').to.be.above(SOUND_RMS);
    });
  });
});
