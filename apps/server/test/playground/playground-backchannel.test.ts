// @test-tier paced: two browsers play recorded speech over ~30 s spoken replies in real time and mostly wait
import { expect } from 'chai';
import { launchBrowser, screenshot, watchPage } from '../helpers/browser.js';
import { atOnce } from '../helpers/at-once.js';
import { openTab, signInToPlayground } from '../helpers/playground-page.js';
import { concat, recordedNot, recordedOh, silence } from '../helpers/recorded-speech.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The playground in real browsers (Debian's Chromium through playwright-core) against the real
 * server: a recorded backchannel over a long spoken reply, over the WebSocket and WebRTC at once.
 * Apart from playground-browser.test.ts because it plays real-time audio and mostly waits: it runs
 * in the paced lane beside that file instead of after it.
 */
describe('playground in a real browser: backchannels', function () {
  this.timeout(180_000);
  let t: TestServer;
  before(async function () {
    requireRecognizer();
    t = await startTestServer();
  });
  after(async () => {
    await t?.close();
  });

  /**
   * "Done means" of issue 23: a recorded human backchannel played into the playground's microphone
   * while the agent's long reply plays does not stop it. A browser of its own, whose microphone says
   * a speaker's recorded "oh" (250 ms) and, 5 s later, a reader's "not" (330 ms), both short enough for the
   * default settings to judge them, then stays silent long after the reply ends (Chromium loops the
   * file; over WebRTC, see below). The reply answers a typed turn, so no speech recognition under load decides whether there
   * is one. Through the browser's gain control Silero may miss the soft "oh" (then it never pauses
   * the reply); it always hears the "not", so at least one pause is judged.
   */
  async function backchannelsOverTheReply(transport: 'websocket' | 'webrtc') {
    const long = Array.from(
      { length: 8 },
      (_, i) => `This is sentence number ${i + 1} of a long answer that keeps going for a while.`,
    ).join(' ');
    // WebSocket: the file starts when the microphone button is pressed, once the agent speaks (1.5 s
    // into the reply). WebRTC: the call captures from its start and the button only unmutes the
    // track, so the file cannot be timed from the reply (a reply that starts late on a busy machine
    // began after both utterances): it repeats the two every 6 s, the track is unmuted once the
    // agent speaks and muted again once the reply has resumed after one of them.
    const utterances = [recordedOh(), silence(2500), recordedNot(), silence(2500)];
    const own = await launchBrowser(
      transport === 'websocket'
        ? concat([silence(1500), recordedOh(), silence(5000), recordedNot(), silence(90_000)])
        : concat([silence(1000), ...Array.from({ length: 20 }, () => utterances).flat()]),
    );
    try {
      const context2 = await own.newContext(t.baseUrl);
      // The session's events as they arrive, from the socket or the call's data channel (the page's
      // own log keeps only its last lines), and what the page sent.
      await context2.addInitScript(() => {
        const w = globalThis as any;
        w.__events = [];
        w.__sent = [];
        const record = (m: any) => typeof m.data === 'string' && w.__events.push(JSON.parse(m.data));
        const createDataChannel = w.RTCPeerConnection.prototype.createDataChannel;
        w.RTCPeerConnection.prototype.createDataChannel = function (...args: any[]) {
          const dc = createDataChannel.apply(this, args);
          dc.addEventListener('message', record);
          const send = dc.send.bind(dc);
          dc.send = (data: any) => (w.__sent.push(JSON.parse(data)), send(data));
          return dc;
        };
        const Socket = w.WebSocket;
        w.WebSocket = class extends Socket {
          constructor(...args: any[]) {
            super(...args);
            this.addEventListener('message', record);
          }
          send(data: any) {
            w.__sent.push(JSON.parse(data));
            super.send(data);
          }
        };
      });
      const p = await context2.newPage();
      const seen = watchPage(p, t.baseUrl);
      const events = () => p.evaluate(() => (globalThis as any).__events as any[]);
      await signInToPlayground(p, t);
      await openTab(p, 'realtime');
      await p.selectOption('#rt-transport', transport);
      await p.selectOption('#rt-mode', 'audio');
      await p.fill('#rt-instructions', `Say exactly: "${long}"`);
      await p.click('#rt-connect');
      await p.waitForSelector('#rt-send:not([disabled])', { timeout: 20_000 });
      await p.fill('#rt-text', 'Read me the long answer, please.');
      await p.click('#rt-send');
      await p.waitForSelector('#rt-status[data-agent-speaking="true"]', { timeout: 40_000 });
      await p.click('#rt-mic');
      let micOn = true;
      const deadline = Date.now() + 120_000;
      let done: any;
      while (!(done = (await events()).find((e) => e.type === 'response.done'))) {
        if (Date.now() > deadline) throw new Error(`no response.done: ${(await events()).map((e) => e.type).join(' ')}`);
        // WebRTC: one utterance judged and the reply resumed; no more, so none comes after the reply
        if (transport === 'webrtc' && micOn && (await events()).some((e) => e.type === 'response.output_audio.resumed')) {
          await p.click('#rt-mic');
          micOn = false;
        }
        await p.waitForTimeout(250);
      }
      // WebRTC: the track plays the reply's last 500 ms after response.done; wait for it to end.
      if (transport === 'webrtc') await p.waitForSelector('#rt-status[data-agent-speaking="false"]', { timeout: 30_000 });
      const all = await events();
      const shown = `${all
        .map((e) => e.type)
        .filter((x) => !x.endsWith('.delta'))
        .join(' ')}; errors: ${JSON.stringify(all.filter((e) => e.type === 'error'))}`;
      expect(done.response.status, shown).to.equal('completed');
      const reply = done.response.id;
      const paused = all.filter((e) => e.type === 'response.output_audio.paused' && e.response_id === reply);
      const resumed = all.filter((e) => e.type === 'response.output_audio.resumed' && e.response_id === reply);
      expect(paused.length, `the recorded speech was heard over the reply: ${shown}`).to.be.at.least(1);
      expect(resumed.length).to.equal(paused.length);
      expect(
        all.map((e) => e.type),
        'no utterance became a turn',
      ).not.to.include('input_audio_buffer.committed');
      if (transport === 'webrtc') expect(all.map((e) => e.type)).not.to.include('output_audio_buffer.cleared');
      expect(done.response.output[0].content[0].transcript).to.equal(long);
      // Once the page has played it all: the agent stops speaking, the bubble holds the whole reply,
      // and the page never cut or truncated it.
      await p.waitForSelector('#rt-status[data-agent-speaking="false"]', { timeout: 30_000 });
      const bubble = p.locator('#rt-transcript li.assistant').first();
      expect(await bubble.getAttribute('class')).not.to.contain('cancelled');
      expect(await bubble.textContent()).to.equal(long);
      const sent = await p.evaluate(() => (globalThis as any).__sent as any[]);
      expect(sent.map((e) => e.type)).not.to.include('conversation.item.truncate');
      console.log(
        `      browser (${transport}): ${paused.length} recorded utterances heard over the reply, paused ${resumed.map((e) => e.paused_ms).join(' + ')} ms, reply completed whole`,
      );
      await screenshot(p, `realtime-backchannel-${transport}`);
      await p.click('#rt-disconnect');
      expect(seen.consoleErrors, 'console errors').to.deep.equal([]);
      expect(seen.failedRequests, 'failed requests').to.deep.equal([]);
    } finally {
      await own.close();
    }
  }

  // Each in a browser of its own, with its own microphone and session: the two replies (~30 s
  // each, played at the listener's pace) run at once.
  describe('a recorded backchannel over a long reply, over both transports at once', () => {
    const scenario = atOnce();
    scenario(
      'realtime: a recorded human "oh" over a long spoken reply does not stop it: paused, resumed, the reply completes and plays whole',
      () => backchannelsOverTheReply('websocket'),
    );
    scenario(
      'realtime over WebRTC: a recorded human "oh" over a long spoken reply does not stop it (no output_audio_buffer.cleared), the reply completes',
      () => backchannelsOverTheReply('webrtc'),
    );
  });
});
