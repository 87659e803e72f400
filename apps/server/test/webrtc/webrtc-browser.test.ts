// @test-tier alone: barge-in and audible replies over two WebRTC calls in a browser; beside the playground browser file (its own WebRTC calls) replies were cut off (RMS 0) in 2 of 3 fresh-clone runs
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, waitForPageEvent, watchPage, type PageProblems, type TestBrowser } from '../helpers/browser.js';
import { MIC_CLIP_WORDS } from '../helpers/librivox.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// page.evaluate bodies run in the browser; the server's compilation has no DOM library.
declare const window: any, document: any, navigator: any, RTCPeerConnection: any, AudioContext: any, performance: any;

/** The agents SDK's browser bundle (UMD: globalThis.OpenAIAgentsRealtime), as published on npm. */
const SDK_BUNDLE = readFileSync(
  join(
    createRequire(import.meta.url)
      .resolve('@openai/agents-realtime')
      .replace(/dist[\\/]index\.js$/, ''),
    'dist/bundle/openai-realtime-agents.umd.js',
  ),
  'utf8',
);
const LONG_REPLY = Array.from(
  { length: 6 },
  (_, i) => `This is sentence number ${i + 1} of a long answer that keeps going for a while.`,
).join(' ');

/**
 * Installs the page-side probe: every realtime event with its arrival time, and a WebAudio
 * analyser on the reply's remote track measuring what a listener would hear (RMS per 50 ms).
 */
async function installProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window;
    w.__events = [];
    w.__levels = [];
    w.__record = (e: any) => w.__events.push({ ...e, __at: performance.now() });
    w.__listen = (stream: any) => {
      // Chromium delivers a remote WebRTC track to WebAudio only while a media element plays it.
      const el = document.createElement('audio');
      el.srcObject = stream;
      el.muted = true;
      void el.play();
      const ctx = new AudioContext();
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 2048;
      ctx.createMediaStreamSource(stream).connect(analyser);
      const buf = new Float32Array(analyser.fftSize);
      setInterval(() => {
        analyser.getFloatTimeDomainData(buf);
        let sum = 0;
        for (const v of buf) sum += v * v;
        w.__levels.push({ at: performance.now(), rms: Math.sqrt(sum / buf.length) });
      }, 50);
      void ctx.resume();
    };
  });
}

/** Waits until no user turn is open and every response created is done (nothing under way). */
async function settled(page: Page, timeout = 40_000): Promise<void> {
  const start = Date.now();
  for (;;) {
    const busy: boolean = await page.evaluate(() => {
      const events: any[] = window.__events;
      const count = (type: string) => events.filter((e) => e.type === type).length;
      return (
        count('input_audio_buffer.speech_started') > count('input_audio_buffer.speech_stopped') ||
        count('response.created') > count('response.done')
      );
    });
    if (!busy) return;
    if (Date.now() - start > timeout) throw new Error('the session did not settle (a turn or a response still under way)');
    await page.waitForTimeout(250);
  }
}

const eventTypes = (page: Page) => page.evaluate(() => window.__events.map((e: any) => e.type) as string[]);

/** Loudest reply level (RMS) between two page times. */
const loudestBetween = (page: Page, from: number, to = Number.MAX_SAFE_INTEGER) =>
  page.evaluate(([a, b]) => Math.max(0, ...window.__levels.filter((l: any) => l.at >= a && l.at <= b).map((l: any) => l.rms)), [
    from,
    to,
  ] as const);

/**
 * The loudest reply level since `from`, once it passes `level` or `withinMs` have passed (a loaded
 * machine's browser plays a reply's end later than the track has sent it).
 */
async function loudestSince(page: Page, from: number, level: number, withinMs = 3000): Promise<number> {
  const until = Date.now() + withinMs;
  for (;;) {
    const loudest = await loudestBetween(page, from);
    if (loudest > level || Date.now() > until) return loudest;
    await page.waitForTimeout(100);
  }
}

/**
 * After a cut at `at` (page time): when the reply fell quiet, as the first 800 ms window starting
 * 700-3,000 ms after the cut whose loudest level is under `level` (null: none was). What was in
 * flight and in the jitter buffer plays out first, later on a loaded machine; a reply that went on
 * (the long one is ~20 s) is quiet in none.
 */
async function quietAfter(page: Page, at: number, level: number): Promise<number | null> {
  const now = await page.evaluate(() => performance.now());
  await page.waitForTimeout(Math.max(0, at + 3800 - now));
  for (let start = 700; start <= 3000; start += 100) if ((await loudestBetween(page, at + start, at + start + 800)) < level) return start;
  return null;
}

/**
 * Chromium against the real server over WebRTC, with a fake microphone playing a LibriVox reader
 * (1 s of silence, the sentence, 7 s of silence, looped): a raw RTCPeerConnection client and the
 * official @openai/agents-realtime SDK with its default WebRTC transport. Each connects, gets
 * session.created, holds a text turn and a spoken turn with audible reply audio, and barges in.
 */
describe('realtime over WebRTC in Chromium (raw RTCPeerConnection and the agents SDK)', function () {
  this.timeout(240_000);
  let t: TestServer;
  let browser: TestBrowser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;

  before(async () => {
    requireRecognizer();
    t = await startTestServer();
    browser = await launchBrowser();
    context = await browser.newContext(t.baseUrl);
  });
  beforeEach(async () => {
    page = await context.newPage();
    problems = watchPage(page, t.baseUrl);
    // An application's page on the server's origin (the SDK's bundle needs eval, which the
    // service's own pages forbid by CSP; an app page sets its own policy).
    await page.route(`${t.baseUrl}/test-app`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><html lang="en"><title>app</title><body></body></html>' }),
    );
    await page.goto(`${t.baseUrl}/test-app`);
    await installProbe(page);
  });
  afterEach(async () => {
    expect(problems.consoleErrors, 'console errors').to.deep.equal([]);
    expect(problems.failedRequests, 'failed requests').to.deep.equal([]);
    expect(problems.foreignRequests, 'requests to another origin').to.deep.equal([]);
    await page.close();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const mint = async () => {
    const res = await fetch(`${t.baseUrl}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    return ((await res.json()) as { value: string }).value;
  };

  it('a raw RTCPeerConnection: offer, answer, session.created, a text turn and a spoken turn with audible replies, barge-in', async () => {
    const secret = await mint();
    const setup = await page.evaluate(
      async ({ secret, instructions }) => {
        const w = window;
        const mic = await navigator.mediaDevices.getUserMedia({
          audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
        });
        const pc = new RTCPeerConnection();
        const dc = pc.createDataChannel('oai-events');
        dc.onmessage = (m: any) => w.__record(JSON.parse(m.data));
        pc.ontrack = (e: any) => w.__listen(e.streams[0]);
        pc.addTrack(mic.getAudioTracks()[0], mic);
        const offer = await pc.createOffer();
        await pc.setLocalDescription(offer);
        const res = await fetch('/v1/realtime/calls', {
          method: 'POST',
          body: offer.sdp,
          headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/sdp' },
        });
        const answer = await res.text();
        await pc.setRemoteDescription({ type: 'answer', sdp: answer });
        await new Promise<void>((resolve) => (dc.readyState === 'open' ? resolve() : (dc.onopen = () => resolve())));
        dc.send(
          JSON.stringify({
            type: 'session.update',
            session: { type: 'realtime', instructions, audio: { input: { transcription: { model: 'svc-stt-3.1' } } } },
          }),
        );
        w.__dc = dc;
        w.__pc = pc;
        return {
          status: res.status,
          type: res.headers.get('content-type'),
          location: res.headers.get('location'),
          echo: mic.getAudioTracks()[0].getSettings().echoCancellation,
        };
      },
      { secret, instructions: 'You are a helpful voice assistant.' },
    );
    expect(setup.status).to.equal(201);
    expect(setup.type).to.match(/^application\/sdp/);
    expect(setup.location).to.match(/^\/v1\/realtime\/calls\/rtc_/);
    expect(setup.echo, 'the microphone runs with echo cancellation').to.equal(true);
    const created = await waitForPageEvent(page, (e) => e.type === 'session.created');
    expect((await eventTypes(page))[0]).to.equal('session.created');
    expect(created.session.id).to.match(/^sess_/);
    await waitForPageEvent(page, (e) => e.type === 'session.updated');

    // A spoken turn: the fake microphone's sentence, recognized, answered on the audio track. The
    // call may start mid-sentence (the microphone loops every ~11 s): a whole pass is recognized.
    const heardWords = (e: any) =>
      MIC_CLIP_WORDS.split(' ').filter((w) => String(e.transcript).toLowerCase().split(/\s+/).includes(w)).length;
    const transcript = await waitForPageEvent(
      page,
      (e) => e.type === 'conversation.item.input_audio_transcription.completed' && heardWords(e) >= 3,
      40_000,
    );
    expect(heardWords(transcript), transcript.transcript).to.be.at.least(3);
    const spokenStart = await waitForPageEvent(page, (e) => e.type === 'output_audio_buffer.started' && e.__at > transcript.__at, 30_000);
    // The microphone's next pass may talk over the reply (stopped or cleared); it was heard either way.
    await page.waitForTimeout(1500);
    expect(await loudestBetween(page, spokenStart.__at), 'spoken reply audible (RMS)').to.be.greaterThan(0.01);

    // A text turn (between two passes of the microphone's loop), answered aloud too.
    const before = await page.evaluate(() => performance.now());
    await page.evaluate(() => {
      window.__dc.send(
        JSON.stringify({
          type: 'conversation.item.create',
          item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there' }] },
        }),
      );
      window.__dc.send(JSON.stringify({ type: 'response.create' }));
    });
    const textStart = await waitForPageEvent(page, (e) => e.type === 'output_audio_buffer.started' && e.__at > before, 30_000);
    // response.done comes when generation ends, up to the track's lead before the browser plays the
    // reply's end (a short reply may not have reached the analyser by then on a loaded machine): the
    // level is read once the track has sent it all (or a pass of the microphone cut it off).
    await waitForPageEvent(
      page,
      (e) =>
        (e.type === 'output_audio_buffer.stopped' || e.type === 'output_audio_buffer.cleared') && e.response_id === textStart.response_id,
      30_000,
    );
    expect(await loudestSince(page, textStart.__at, 0.01), 'text turn reply audible (RMS)').to.be.greaterThan(0.01);

    // Barge-in: a long reply; the microphone's next pass talks over it. Only the reply made under the
    // new instructions counts: a reply that was already answering a pass may still be on the track
    // after its response.done (completed; the track runs 500 ms behind) and be cut there too, which
    // is a clear of a completed response, not this check (under load that clear came first).
    const mark = await page.evaluate((instructions) => {
      const at = performance.now();
      window.__dc.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', instructions } }));
      return at;
    }, `Say exactly: "${LONG_REPLY}"`);
    const updated = await waitForPageEvent(
      page,
      (e) => e.type === 'session.updated' && e.__at > mark && e.session.instructions.includes(LONG_REPLY),
    );
    const long = await waitForPageEvent(page, (e) => e.type === 'response.created' && e.__at > updated.__at, 40_000);
    // ~20 s of speech: the microphone's next pass (every ~11 s) comes while it is still generated.
    const cleared = await waitForPageEvent(
      page,
      (e) => e.type === 'output_audio_buffer.cleared' && e.response_id === long.response.id,
      60_000,
    );
    const done = await waitForPageEvent(page, (e) => e.type === 'response.done' && e.response.id === long.response.id);
    expect(done.response.status).to.equal('cancelled');
    const said = done.response.output[0].content[0].transcript as string;
    expect(LONG_REPLY.startsWith(said.trim().replace(/\s+\S*$/, '')), said).to.equal(true);
    expect(said.length, 'truncated to what was heard').to.be.lessThan(LONG_REPLY.length);
    const types = await eventTypes(page);
    expect(types).not.to.include('response.output_audio.delta');
    // Quiet again shortly after the cut (what was in flight and in the jitter buffer plays out).
    expect(await quietAfter(page, cleared.__at, 0.01), 'quiet after the barge-in (ms after the clear)').not.to.equal(null);
    await page.evaluate(() => window.__pc.close());
  });

  it('the agents SDK with its default WebRTC transport (OpenAIRealtimeWebRTC) connects unchanged: text turn, spoken turn, barge-in', async () => {
    await page.evaluate(SDK_BUNDLE);
    const secret = await mint();
    const connected = await page.evaluate(
      async ({ secret }) => {
        const w = window;
        const { RealtimeAgent, RealtimeSession, OpenAIRealtimeWebRTC } = w.OpenAIAgentsRealtime;
        const audioElement = document.createElement('audio');
        document.body.append(audioElement);
        const agent = new RealtimeAgent({ name: 'Assistant', instructions: 'You are a helpful voice assistant.' });
        // svc-eph- keys are ephemeral keys, but the SDK only recognizes OpenAI's ek_ prefix.
        const transport = new OpenAIRealtimeWebRTC({ useInsecureApiKey: true, audioElement });
        const session = new RealtimeSession(agent, { transport, model: 'svc-realtime', tracingDisabled: true });
        session.on('transport_event', (e: any) => w.__record(e));
        session.on('error', (e: any) => w.__record({ type: 'sdk.error', error: String(e?.error?.message ?? e?.error ?? e) }));
        await session.connect({ apiKey: secret, url: `${window.location.origin}/v1/realtime/calls` });
        w.__session = session;
        w.__listen(audioElement.srcObject);
        return { callId: transport.callId, status: transport.status };
      },
      { secret },
    );
    expect(connected.status).to.equal('connected');
    expect(connected.callId).to.match(/^rtc_/);
    const types = await eventTypes(page);
    expect(types[0]).to.equal('session.created');
    expect(types).to.include('session.updated');
    expect(
      types.filter((t) => t === 'error' || t === 'sdk.error'),
      JSON.stringify(await page.evaluate(() => window.__events.filter((e: any) => /error/.test(e.type)))),
    ).to.deep.equal([]);

    // A spoken turn through the SDK's own getUserMedia (the fake microphone).
    const transcript = await waitForPageEvent(
      page,
      (e) => e.type === 'conversation.item.input_audio_transcription.completed' && String(e.transcript).split(' ').length >= 3,
      40_000,
    );
    const spoken = await waitForPageEvent(page, (e) => e.type === 'output_audio_buffer.started' && e.__at > transcript.__at, 30_000);
    await page.waitForTimeout(1500);
    expect(await loudestBetween(page, spoken.__at), 'spoken reply audible through the SDK (RMS)').to.be.greaterThan(0.01);

    // The looping fake microphone says its sentence every ~11 s: left open, server VAD would barge in
    // on the text turn and the interrupt below (on a loaded machine the replies last that long). The
    // SDK's mute() (the track disabled: silence) stops it; whatever turn was under way finishes first.
    await page.evaluate(() => window.__session.mute(true));
    await settled(page);
    // A text turn with the SDK's sendMessage.
    const mark = await page.evaluate(() => performance.now());
    await page.evaluate(() => window.__session.sendMessage('hello there'));
    const textDone = await waitForPageEvent(page, (e) => e.type === 'response.done' && e.__at > mark, 30_000);
    expect(textDone.response.status).to.equal('completed');
    const history = await page.evaluate(() => window.__session.history.map((h: any) => ({ role: h.role, type: h.type })));
    expect(history.some((h: any) => h.role === 'assistant')).to.equal(true);

    // Barge-in: the SDK's interrupt (response.cancel + output_audio_buffer.clear) during a long reply.
    await page.evaluate((instructions) => window.__session.transport.updateSessionConfig({ instructions }), `Say exactly: "${LONG_REPLY}"`);
    const before = await page.evaluate(() => performance.now());
    await page.evaluate(() => window.__session.sendMessage('go on'));
    await waitForPageEvent(page, (e) => e.type === 'output_audio_buffer.started' && e.__at > before, 30_000);
    await page.waitForTimeout(1000);
    await page.evaluate(() => window.__session.interrupt());
    const cleared = await waitForPageEvent(page, (e) => e.type === 'output_audio_buffer.cleared' && e.__at > before, 20_000);
    await waitForPageEvent(
      page,
      (e) => e.type === 'response.done' && e.response.id === cleared.response_id && e.response.status === 'cancelled',
      20_000,
    );
    expect(await quietAfter(page, cleared.__at, 0.01), 'quiet after the interrupt (ms after the clear)').not.to.equal(null);
    await page.evaluate(() => window.__session.close());
  });
});
