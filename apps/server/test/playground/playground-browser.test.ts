import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { MAX_INPUT_CHARS } from '@svc/core';
import { concat, whiteNoise } from '@svc/adapters-testing';
import type { BrowserContext, Page } from 'playwright-core';
import {
  accessibilityViolations,
  FIRST_QUIET_AFTER_MS,
  launchBrowser,
  micClip,
  screenshot,
  watchPage,
  type PageProblems,
  type TestBrowser,
} from '../helpers/browser.js';
import { getJson, sleep } from '../helpers/http.js';
import { MIC_CLIP_WORDS } from '../helpers/librivox.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { openTab, PANELS, signInToPlayground } from '../helpers/playground-page.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// The functions given to page.evaluate run in the browser, where these exist; the server's
// compilation has no DOM library (adding it would retype Buffer and fetch for every other test).
declare const document: any, sessionStorage: any, localStorage: any, performance: any, getComputedStyle: any;
type HTMLAudioElement = any;
type HTMLVideoElement = any;

const PHONE = { width: 390, height: 844 };
const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');

/**
 * The playground in a real browser (Debian's Chromium through playwright-core) against the real
 * server: real synthesis, a fake microphone that plays a human reader's sentence, the real
 * realtime gateway with Silero VAD and pocketsphinx. Screenshots go to test-artifacts/playground.
 */
describe('playground in a real browser', function () {
  this.timeout(180_000);
  let t: TestServer;
  let browser: TestBrowser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;

  before(async function () {
    requireRecognizer();
    t = await startTestServer();
    browser = await launchBrowser();
    context = await browser.newContext(t.baseUrl);
    page = await context.newPage();
    problems = watchPage(page, t.baseUrl);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(function () {
    // Every step must leave the page clean: no console error, no failed or foreign request.
    expect(problems.consoleErrors, 'console errors').to.deep.equal([]);
    expect(problems.failedRequests, 'failed requests').to.deep.equal([]);
    expect(problems.foreignRequests, 'requests to another origin').to.deep.equal([]);
  });

  const signIn = (p: Page, server: TestServer = t) => signInToPlayground(p, server);
  // Each test can run alone (mocha -g): sign in unless the page already is.
  beforeEach(async function () {
    if (this.currentTest?.title.startsWith('renders')) return;
    if (page.url().startsWith(`${t.baseUrl}/playground`) && (await page.locator('#signed-in').isVisible())) return;
    await signIn(page);
  });

  const statusOf = (selector: string) => page.locator(selector).textContent();
  /** Until the realtime transcript shows the fake microphone's sentence (3 of its words at least). */
  const waitForSpokenTurn = async (timeoutMs = 40_000) => {
    const heardWords = async () => {
      const users = await page.locator('#rt-transcript li.user').allTextContents();
      return Math.max(0, ...users.map((u) => MIC_CLIP_WORDS.split(' ').filter((w) => u.toLowerCase().split(/\s+/).includes(w)).length));
    };
    const deadline = Date.now() + timeoutMs;
    while ((await heardWords()) < 3) {
      if (Date.now() > deadline) throw new Error(`no recognized turn: ${await page.locator('#rt-transcript').textContent()}`);
      await page.waitForTimeout(250);
    }
  };

  it('renders, keeps the key in session storage only, and loads the voice pickers', async () => {
    await page.goto(`${t.baseUrl}/`);
    await page.waitForSelector('body[data-ready="true"]');
    // Signed out, the panels are inert: nothing can be clicked before a key is given.
    expect(await page.locator('#panel-speech .controls').getAttribute('inert')).to.not.equal(null);
    await screenshot(page, 'signed-out-desktop');
    await signIn(page);
    const storage = await page.evaluate(() => ({ session: { ...sessionStorage }, local: { ...localStorage }, cookie: document.cookie }));
    expect(Object.values(storage.session)).to.include(t.apiKey);
    expect(JSON.stringify(storage.local)).to.not.contain(t.apiKey);
    expect(storage.cookie).to.equal('');
    const presets = await page.locator('#speech-voice option').count();
    expect(presets).to.be.greaterThan(10);
    expect(await page.locator('#speech-voice optgroup[label^="English"]').count()).to.be.greaterThan(0);
    // Keyboard: arrow keys move between the tabs.
    await page.focus('#tab-speech');
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#tab-voices').getAttribute('aria-selected')).to.equal('true');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('tab-voices');
    await openTab(page, 'speech');
  });

  it('refuses a wrong key and forgets it', async () => {
    const p = await context.newPage();
    const own = watchPage(p, t.baseUrl);
    await p.goto(`${t.baseUrl}/playground`);
    await p.waitForSelector('body[data-ready="true"]');
    await p.fill('#api-key', 'svc-not-a-real-key-0000000000');
    await p.click('#signin button[type="submit"]');
    await p.waitForSelector('#signin-hint.error');
    expect(await p.locator('#signin-hint').textContent()).to.contain('401');
    expect(await p.evaluate(() => sessionStorage.length)).to.equal(0);
    // The refused calls are the only failures, and they are answers (401), not failed requests.
    expect(own.failedRequests).to.deep.equal([]);
    await p.close();
  });

  it('speaks: plays the audio and downloads it', async () => {
    await openTab(page, 'speech');
    // The input limit comes from the server: the textarea enforces it and the counter shows it.
    await page.waitForFunction((max) => document.getElementById('speech-input').maxLength === max, MAX_INPUT_CHARS, { timeout: 10_000 });
    expect(await page.locator('#speech-count').textContent()).to.match(new RegExp(`^\\d+ / ${MAX_INPUT_CHARS}$`));
    await page.click('#tag-buttons button:has-text("<|prosody:pause|>")');
    expect(await page.inputValue('#speech-input')).to.contain('<|prosody:pause|>');
    await page.selectOption('#speech-format', 'mp3');
    await page.click('#speech-play');
    await page.waitForSelector('#speech-status.ok', { timeout: 30_000 });
    // The audio element plays: its clock moves.
    await page.waitForFunction(() => (document.getElementById('speech-audio') as HTMLAudioElement).currentTime > 0.2, undefined, {
      timeout: 10_000,
    });
    const duration = await page.evaluate(() => (document.getElementById('speech-audio') as HTMLAudioElement).duration);
    expect(duration).to.be.greaterThan(2);
    expect(await page.locator('[data-code="speech"]').textContent()).to.contain('"response_format":"mp3"');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#speech-download')]);
    expect(download.suggestedFilename()).to.equal('speech.mp3');
    const bytes = readFileSync((await download.path())!);
    expect(bytes.length).to.be.greaterThan(5000);
    // MP3: an ID3 tag or a frame sync.
    expect(bytes.subarray(0, 3).toString() === 'ID3' || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0)).to.equal(true);
    await screenshot(page, 'speech-desktop');
  });

  it('streams pcm and plays it as it arrives, showing the time to first sound', async () => {
    await openTab(page, 'speech');
    await page.click('#speech-stream');
    await page.waitForSelector('#speech-status.ok[data-first-sound-ms]', { timeout: 30_000 });
    const firstSound = Number(await page.locator('#speech-status').getAttribute('data-first-sound-ms'));
    expect(firstSound).to.be.greaterThan(0).and.lessThan(5000);
    console.log(`      browser: streamed pcm, click to first sound ${firstSound} ms`);
    expect(await statusOf('#speech-status')).to.match(/First sound after \d+ ms · [\d.]+ s of audio in \d+ chunks/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#speech-download')]);
    expect(download.suggestedFilename()).to.equal('speech-stream.wav');
    const wav = readFileSync((await download.path())!);
    expect(wav.subarray(0, 4).toString()).to.equal('RIFF');
    expect(wav.readUInt32LE(24)).to.equal(24000);
    const samples = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) >> 1);
    expect(samples.length / 24000).to.be.greaterThan(2);
    const rms = Math.sqrt(samples.reduce((s, x) => s + x * x, 0) / samples.length) / 32768;
    expect(rms).to.be.greaterThan(0.02); // speech, not silence
    expect(await page.locator('[data-code="speech"]').textContent()).to.contain('"stream":true');
  });

  it('speech: the result area shows only the last request (a stream after an MP3, an error after both)', async () => {
    await openTab(page, 'speech');
    const kept = await page.inputValue('#speech-input');
    await page.fill('#speech-input', 'A short sentence.');
    await page.selectOption('#speech-format', 'mp3');
    await page.click('#speech-play');
    await page.waitForSelector('#speech-status.ok', { timeout: 30_000 });
    expect(await page.locator('#speech-audio').isVisible()).to.equal(true);
    await page.click('#speech-stream');
    await page.waitForSelector('#speech-status.ok[data-first-sound-ms]', { timeout: 30_000 });
    // The stream's download only: no player still holding the MP3 beside it.
    expect(await page.locator('#speech-download').textContent()).to.equal('Download speech-stream.wav');
    expect(await page.locator('#speech-audio').isVisible(), 'the earlier MP3 player').to.equal(false);
    expect(await page.locator('#speech-audio').getAttribute('src')).to.equal(null);
    await page.fill('#speech-input', '');
    await page.click('#speech-play');
    await page.waitForSelector('#speech-status.error', { timeout: 10_000 });
    expect(await page.locator('#speech-download').isVisible(), 'the earlier download after an error').to.equal(false);
    // The refused request is this test's own doing: Chromium logs its 400 as a console error.
    const refused = problems.consoleErrors.findIndex((e) => /status of 400/.test(e));
    if (refused >= 0) problems.consoleErrors.splice(refused, 1);
    await screenshot(page, 'speech-error-cleared');
    await page.fill('#speech-input', kept);
  });

  it('speech: whitespace-only text is refused as having nothing to speak', async () => {
    await openTab(page, 'speech');
    const kept = await page.inputValue('#speech-input');
    await page.fill('#speech-input', '   ');
    await page.click('#speech-play');
    await page.waitForSelector('#speech-status.error', { timeout: 10_000 });
    // Not "must contain at least one character": it holds three.
    expect(await statusOf('#speech-status')).to.equal("400 input_empty: 'input' holds only whitespace: there is nothing to speak.");
    const refused = problems.consoleErrors.findIndex((e) => /status of 400/.test(e));
    if (refused >= 0) problems.consoleErrors.splice(refused, 1);
    await page.fill('#speech-input', kept);
  });

  it('records a voice from the microphone, registers, lists, tries and deletes it', async () => {
    await openTab(page, 'voices');
    await page.click('#voice-record');
    await page.waitForSelector('#voice-register:not([disabled])', { timeout: 15_000 });
    await page.fill('#voice-text', MIC_CLIP_WORDS);
    await page.fill('#voice-description', 'fake microphone reader');
    await page.click('#voice-register');
    await page.waitForSelector('#voice-list li[data-voice^="voice_"]', { timeout: 30_000 });
    const id = (await page.locator('#voice-list li[data-voice]').first().getAttribute('data-voice'))!;
    // The server has it under this key, with the transcript the page sent.
    const voice = await getJson(`${t.baseUrl}/v1/audio/voices/${id}`, t.apiKey);
    expect(voice.status).to.equal(200);
    expect(voice.body.ref_text).to.equal(MIC_CLIP_WORDS);
    expect(voice.body.description).to.equal('fake microphone reader');
    // It appears in the speech panel's voice picker too.
    expect(await page.locator(`#speech-voice option[value="${id}"]`).count()).to.equal(1);
    expect(await page.locator('[data-code="voices"]').textContent()).to.contain('ref_audio=@recording.wav');
    // The same clip again: the voice already there, unchanged, and the page says so.
    await page.fill('#voice-description', 'another description');
    await page.click('#voice-register');
    await page.waitForSelector('#voice-status.ok:has-text("already registered")', { timeout: 30_000 });
    expect(await page.locator('#voice-status').textContent()).to.contain(id);
    expect((await getJson(`${t.baseUrl}/v1/audio/voices/${id}`, t.apiKey)).body.description).to.equal('fake microphone reader');
    await screenshot(page, 'voices-desktop');

    await page.click(`#voice-list li[data-voice="${id}"] button:has-text("Try")`);
    await page.waitForFunction(() => (document.getElementById('voice-try-audio') as HTMLAudioElement).currentTime > 0.2, undefined, {
      timeout: 30_000,
    });

    page.once('dialog', (d) => void d.accept());
    await page.click(`#voice-list li[data-voice="${id}"] button:has-text("Delete")`);
    await page.waitForSelector(`#voice-list li[data-voice="${id}"]`, { state: 'detached' });
    expect((await getJson(`${t.baseUrl}/v1/audio/voices/${id}`, t.apiKey)).status).to.equal(404);
  });

  it('records a voice reference raw: the sentence in a quiet room (-65 dBFS) keeps its level and registers', async () => {
    // With echo cancellation, noise suppression and gain control on (what a live call wants),
    // Chromium raised this sentence by ~10 dB and cut the room to -84 dBFS, and a user's recording
    // was refused (audio_too_short: 0.29 s of voiced speech). A voice reference is captured as is.
    const sentence = micClip().subarray(16000, -7 * 16000);
    const quietBrowser = await launchBrowser(concat(whiteNoise(1000, 18, 16000, 1), sentence, whiteNoise(7000, 18, 16000, 2)));
    try {
      // bypassCSP: the test reads the recorded clip's blob: URL, which the page's CSP keeps from fetch.
      const quietContext = await quietBrowser.browser.newContext({ bypassCSP: true });
      await quietContext.grantPermissions(['microphone'], { origin: t.baseUrl });
      const quietPage = await quietContext.newPage();
      const quietProblems = watchPage(quietPage, t.baseUrl);
      await signIn(quietPage);
      await openTab(quietPage, 'voices');
      await quietPage.click('#voice-record');
      await quietPage.waitForSelector('#voice-register:not([disabled])', { timeout: 15_000 });
      const recorded = Buffer.from(
        await quietPage.evaluate(async () => {
          const bytes = new Uint8Array(await (await fetch(document.getElementById('voice-preview').src)).arrayBuffer());
          return Array.from(bytes, (b) => String.fromCharCode(b)).join('');
        }),
        'latin1',
      );
      const rate = recorded.readUInt32LE(24);
      const pcm = new Int16Array(recorded.buffer.slice(recorded.byteOffset + 44, recorded.byteOffset + recorded.length));
      /** dBFS of each 100 ms. */
      const levels = (x: Int16Array, r: number) =>
        Array.from({ length: Math.floor(x.length / (r / 10)) }, (_, i) => {
          const w = x.subarray((i * r) / 10, ((i + 1) * r) / 10);
          return 20 * Math.log10(Math.sqrt(w.reduce((s, v) => s + v * v, 0) / w.length) / 32768 + 1e-9);
        });
      const got = levels(pcm, rate);
      const shown = got.map((l) => l.toFixed(0)).join(' ');
      expect(Math.max(...got), `loudest 100 ms, as recorded (dBFS per 100 ms: ${shown})`).to.be.closeTo(
        Math.max(...levels(sentence, 16000)),
        3,
      );
      expect(Math.min(...got), `the room's quiet is kept, not suppressed (${shown})`).to.be.greaterThan(-78);

      await quietPage.fill('#voice-text', MIC_CLIP_WORDS);
      await quietPage.click('#voice-register');
      await quietPage.waitForSelector('#voice-status.ok:has-text("Registered"), #voice-status.error', { timeout: 30_000 });
      expect(await quietPage.locator('#voice-status').textContent()).to.match(/^Registered voice_/);
      const id = (await quietPage.locator('#voice-list li[data-voice]').first().getAttribute('data-voice'))!;
      const deleted = await fetch(`${t.baseUrl}/v1/audio/voices/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${t.apiKey}` },
      });
      expect(deleted.ok).to.equal(true);
      expect(quietProblems.consoleErrors).to.deep.equal([]);
    } finally {
      await quietBrowser.close();
    }
  });

  it('realtime: a typed turn gets a text reply over a socket opened with a client secret only', async () => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const handshakes: Array<Record<string, string>> = [];
    cdp.on('Network.webSocketWillSendHandshakeRequest', (e) => handshakes.push(e.request.headers));

    await openTab(page, 'realtime');
    await page.selectOption('#rt-transport', 'websocket');
    await page.selectOption('#rt-mode', 'text');
    await page.click('#rt-connect');
    await page.waitForSelector('#rt-send:not([disabled])', { timeout: 15_000 });
    await page.fill('#rt-text', 'hello there');
    await page.click('#rt-send');
    await page.waitForFunction(() => document.querySelector('#rt-transcript li.assistant')?.textContent?.length, undefined, {
      timeout: 15_000,
    });
    await page.waitForSelector('#rt-latency li[data-latency-ms]');
    expect(await page.locator('#rt-transcript li.user').first().textContent()).to.equal('hello there');

    expect(handshakes).to.have.length(1);
    const offered = handshakes[0]!['Sec-WebSocket-Protocol'] ?? '';
    expect(offered).to.match(/^realtime, svc-client-secret\.svc-eph-/);
    expect(JSON.stringify(handshakes)).to.not.contain(t.apiKey);
    expect(handshakes[0]!.Authorization).to.equal(undefined);
    await page.click('#rt-disconnect');
    await cdp.detach();
  });

  it('realtime: a spoken turn from the microphone is transcribed and answered with speech', async () => {
    await openTab(page, 'realtime');
    await page.selectOption('#rt-transport', 'websocket');
    await page.selectOption('#rt-mode', 'audio');
    await page.click('#rt-connect');
    await page.waitForSelector('#rt-mic:not([disabled])', { timeout: 15_000 });
    await page.click('#rt-mic');
    // The fake microphone says "he was not an ill disposed young man"; pocketsphinx hears part of it.
    await page.waitForFunction(
      () => [...document.querySelectorAll('#rt-transcript li.user')].some((li) => li.textContent && li.textContent !== '…'),
      undefined,
      { timeout: 30_000 },
    );
    const heard = (await page.locator('#rt-transcript li.user').last().textContent())!.toLowerCase().split(/\s+/);
    const words = MIC_CLIP_WORDS.split(' ').filter((w) => heard.includes(w));
    expect(words.length, heard.join(' ')).to.be.at.least(3);
    await page.waitForSelector('#rt-latency li[data-latency-ms]:has-text("spoken")', { timeout: 30_000 });
    const latency = Number(await page.locator('#rt-latency li:has-text("spoken")').first().getAttribute('data-latency-ms'));
    expect(latency).to.be.greaterThan(0).and.lessThan(15_000);
    console.log(`      browser: spoken turn, end of speech to first reply audio ${latency} ms (heard: ${heard.join(' ')})`);
    // The reply was spoken: its audio arrived and its transcript is shown.
    const log = await page.locator('#rt-log').textContent();
    expect(log).to.contain('response.output_audio.delta');
    await page.waitForFunction(() => (document.querySelector('#rt-transcript li.assistant:last-child')?.textContent ?? '').length > 5);
    await screenshot(page, 'realtime-desktop');
    await page.click('#rt-mic');
    await page.click('#rt-disconnect');
  });

  it('realtime: talking over a long spoken reply interrupts it, and the page stops playing it', async () => {
    // The embedded model follows `Say exactly: "…"`: a reply of ~20 s, longer than the 7 s of
    // silence before the fake microphone's sentence comes round again.
    const long = Array.from(
      { length: 6 },
      (_, i) => `This is sentence number ${i + 1} of a long answer that keeps going for a while.`,
    ).join(' ');
    await openTab(page, 'realtime');
    await page.selectOption('#rt-transport', 'websocket');
    await page.fill('#rt-instructions', `Say exactly: "${long}"`);
    await page.click('#rt-connect');
    await page.waitForSelector('#rt-mic:not([disabled])', { timeout: 15_000 });
    await page.click('#rt-mic');
    try {
      await page.waitForSelector('#rt-status[data-agent-speaking="true"]', { timeout: 40_000 });
      await page.waitForSelector('#rt-transcript li.assistant.cancelled', { timeout: 60_000 });
    } catch (err) {
      // Say what the session did: the event log and the conversation as the page shows them.
      const shown = await page.locator('#rt-transcript').textContent();
      const events = ((await page.locator('#rt-log').textContent()) ?? '').slice(-3000);
      throw new Error(`${(err as Error).message}\nconversation: ${shown}\nlast events: ${events}`);
    }
    const speakingAfter = await page.locator('#rt-status').getAttribute('data-agent-speaking');
    expect(speakingAfter, ((await page.locator('#rt-log').textContent()) ?? '').slice(-4000)).to.equal('false');
    // Either the server was still generating (it cancels: response.done cancelled) or the reply was
    // complete and still playing here (the page truncates the item to what was heard).
    const log = (await page.locator('#rt-log').textContent())!;
    expect(/"status":"cancelled"/.test(log) || /conversation\.item\.truncated/.test(log), 'cancelled or truncated').to.equal(true);
    await screenshot(page, 'realtime-barge-in-desktop');
    await page.click('#rt-mic');
    await page.click('#rt-disconnect');
    await page.fill('#rt-instructions', 'You are a helpful voice assistant. Keep your answers short and conversational.');
  });

  it('realtime over WebRTC (the default): echo cancellation on, a spoken turn answered on the audio track, latency shown', async () => {
    // A fresh page load: WebRTC is what the panel starts with.
    await page.reload();
    await page.waitForSelector('#signed-in:not([hidden])');
    await openTab(page, 'realtime');
    expect(await page.inputValue('#rt-transport')).to.equal('webrtc');
    await page.selectOption('#rt-mode', 'audio');
    await page.click('#rt-connect');
    await page.waitForSelector('#rt-mic:not([disabled])', { timeout: 20_000 });
    expect(await page.locator('#rt-status').getAttribute('data-transport')).to.equal('webrtc');
    expect(await page.locator('#rt-status').getAttribute('data-echo-cancellation'), 'echo cancellation on the microphone').to.equal('true');
    await page.waitForSelector('#rt-status[data-jitter-buffer-target]', { timeout: 20_000 });
    expect(
      await page.locator('#rt-status').getAttribute('data-jitter-buffer-target'),
      "the reply's receiver asked for the least jitter buffer",
    ).to.equal('0');
    await page.click('#rt-mic');
    await waitForSpokenTurn();
    await page.waitForSelector('#rt-latency li[data-latency-ms]:has-text("spoken")', { timeout: 30_000 });
    const latency = Number(await page.locator('#rt-latency li:has-text("spoken")').first().getAttribute('data-latency-ms'));
    expect(latency).to.be.greaterThan(0).and.lessThan(15_000);
    console.log(`      browser: WebRTC spoken turn, end of speech to first reply sound ${latency} ms`);
    const log = (await page.locator('#rt-log').textContent())!;
    expect(log).to.contain('output_audio_buffer.started');
    expect(log).not.to.contain('response.output_audio.delta');
    await screenshot(page, 'realtime-webrtc-desktop');
    await page.click('#rt-mic');
    await page.click('#rt-disconnect');
  });

  it("realtime over WebRTC: a typed turn is timed from the send to the reply's first sound; Disconnect says the call is over", async () => {
    await openTab(page, 'realtime');
    await page.selectOption('#rt-transport', 'webrtc');
    await page.selectOption('#rt-mode', 'audio');
    await page.click('#rt-connect');
    await page.waitForSelector('#rt-send:not([disabled])', { timeout: 20_000 });
    await page.fill('#rt-text', 'What time is it?');
    await page.click('#rt-send');
    // No audio event reaches the page over WebRTC: the reply track's meter dates the first sound.
    await page.waitForSelector('#rt-latency li[data-latency-ms]:has-text("typed")', { timeout: 30_000 });
    const line = (await page.locator('#rt-latency li:has-text("typed")').first().textContent())!;
    expect(line).to.match(/^typed turn: \d+ ms to first audio$/);
    const ms = Number(await page.locator('#rt-latency li:has-text("typed")').first().getAttribute('data-latency-ms'));
    expect(ms).to.be.greaterThan(0).and.lessThan(15_000);
    console.log(`      browser: WebRTC typed turn, send to first reply sound ${ms} ms`);
    await page.click('#rt-disconnect');
    await page.waitForSelector('#rt-connect:not([disabled])');
    expect(await page.locator('#rt-send').isDisabled()).to.equal(true);
    expect(await statusOf('#rt-status')).to.equal('Disconnected (client closed).');
    expect(await page.locator('#rt-status').getAttribute('class')).to.not.match(/\b(ok|error)\b/);
  });

  for (const transport of ['webrtc', 'websocket'] as const)
    it(`realtime with semantic VAD chosen (${transport}): the session asks for it, a spoken turn is answered and timed, a change while connected is sent`, async () => {
      await page.reload();
      await page.waitForSelector('#signed-in:not([hidden])');
      await openTab(page, 'realtime');
      await page.selectOption('#rt-transport', transport);
      await page.selectOption('#rt-mode', 'audio');
      await page.selectOption('#rt-turn', 'semantic_vad');
      const connectedAt = performance.now();
      await page.click('#rt-connect');
      await page.waitForSelector('#rt-mic:not([disabled])', { timeout: 20_000 });
      await page.waitForFunction(() => document.querySelector('#rt-log')?.textContent?.includes('"semantic_vad"'), undefined, {
        timeout: 20_000,
      });
      // The call opened the microphone as it connected: the button is pressed, as a user would, before
      // speech (the WebSocket opens it at the button).
      if (transport === 'webrtc') await sleep(connectedAt + FIRST_QUIET_AFTER_MS - performance.now());
      await page.click('#rt-mic');
      await waitForSpokenTurn();
      // Two turns: the fake microphone's loop says the sentence again ~11 s later. The first is said
      // while Chromium's audio processing (gain control, noise suppression) is still settling on a
      // microphone that was silent until then; the second is heard as a user's later turns are.
      await page.waitForFunction(() => document.querySelectorAll('#rt-latency li[data-latency-ms]').length >= 2, undefined, {
        timeout: 40_000,
      });
      const latencies = (await page
        .locator('#rt-latency li[data-latency-ms]')
        .evaluateAll((lis) => lis.map((li) => `${li.textContent?.split(' ')[0]} ${li.getAttribute('data-latency-ms')}`))) as string[];
      for (const l of latencies.slice(0, 2)) {
        const [kind, ms] = l.split(' ');
        expect(kind).to.equal('spoken');
        expect(Number(ms)).to.be.greaterThan(0).and.lessThan(15_000);
      }
      console.log(
        `      browser: ${transport} spoken turns with semantic_vad, end of speech to first reply sound ${latencies.map((l) => l.split(' ')[1]).join(', ')} ms`,
      );
      expect(await page.locator('#rt-status').getAttribute('data-transport')).to.equal(transport);
      await screenshot(page, `realtime-semantic-vad-${transport}-desktop`);
      // Changed while connected: the page sends session.update, and the server's answer carries it.
      await page.selectOption('#rt-turn', 'semantic_vad_high');
      await page.waitForFunction(() => /"eagerness":\s*"high"/.test(document.querySelector('#rt-log')?.textContent ?? ''), undefined, {
        timeout: 20_000,
      });
      await page.click('#rt-mic');
      await page.click('#rt-disconnect');
      await page.selectOption('#rt-turn', 'server_vad');
    });

  it('realtime over WebRTC: talking over a long spoken reply cuts it off (output_audio_buffer.cleared)', async () => {
    const long = Array.from(
      { length: 6 },
      (_, i) => `This is sentence number ${i + 1} of a long answer that keeps going for a while.`,
    ).join(' ');
    await openTab(page, 'realtime');
    await page.selectOption('#rt-transport', 'webrtc');
    await page.fill('#rt-instructions', `Say exactly: "${long}"`);
    await page.click('#rt-connect');
    await page.waitForSelector('#rt-mic:not([disabled])', { timeout: 20_000 });
    await page.click('#rt-mic');
    try {
      await page.waitForSelector('#rt-status[data-agent-speaking="true"]', { timeout: 40_000 });
      await page.waitForSelector('#rt-transcript li.assistant.cancelled', { timeout: 60_000 });
    } catch (err) {
      const events = ((await page.locator('#rt-log').textContent()) ?? '').slice(-3000);
      throw new Error(`${(err as Error).message}\nlast events: ${events}`);
    }
    expect(await page.locator('#rt-log').textContent()).to.contain('output_audio_buffer.cleared');
    await page.click('#rt-mic');
    await page.click('#rt-disconnect');
    await page.fill('#rt-instructions', 'You are a helpful voice assistant. Keep your answers short and conversational.');
  });

  it('talk to the avatar: a sample face, a call whose <video> shows decoded frames, a spoken turn answered, hang up', async () => {
    const reply = 'Hello! I am the face of this server. Everything you see and hear is made on its processor, while we talk.';
    await openTab(page, 'realtime');
    await page.selectOption('#rt-transport', 'webrtc');
    await page.selectOption('#rt-mode', 'audio');
    await page.fill('#rt-instructions', `Say exactly: "${reply}"`);
    await page.click('#rt-face-samples button[title="Sample photo 1"]');
    await page.waitForFunction(() => {
      const img = document.getElementById('rt-face-preview');
      return !img.hidden && img.complete && img.naturalWidth > 0;
    });
    expect(await page.locator('#rt-face-none').isDisabled(), 'voice only offered once a face is chosen').to.equal(false);
    expect(await page.locator('[data-code="realtime"]').textContent(), 'the code sample places an avatar call').to.contain(
      'the session naming the face',
    );
    await page.click('#rt-connect');
    await page.waitForSelector('#rt-mic:not([disabled])', { timeout: 30_000 });
    expect(await page.locator('#rt-status').getAttribute('data-avatar')).to.equal('true');
    expect(await page.locator('#rt-face-image').isDisabled(), 'the face is fixed during the call').to.equal(true);
    expect(await page.locator('#rt-log').textContent(), 'session.created names the avatar').to.match(/"avatar":\{"size":"640x640"/);

    /**
     * Frames the <video> decoded over 2 s (getVideoPlaybackQuality), and how many of them the page
     * painted (requestVideoFrameCallback; headless Chromium paints fewer on a loaded machine). The
     * machine is loaded: frames must flow, not reach 25 fps.
     */
    const framesIn2s = () =>
      page.evaluate(async () => {
        const video = document.getElementById('rt-video') as HTMLVideoElement;
        const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
        const deadline = performance.now() + 20_000;
        while (video.videoWidth === 0 && performance.now() < deadline) await sleep(50);
        let painted = 0;
        const count = () => {
          painted++;
          video.requestVideoFrameCallback(count);
        };
        video.requestVideoFrameCallback(count);
        const decodedBefore = video.getVideoPlaybackQuality().totalVideoFrames;
        await sleep(2000);
        const frames = video.getVideoPlaybackQuality().totalVideoFrames - decodedBefore;
        return { frames, painted, width: video.videoWidth, height: video.videoHeight, paused: video.paused, hidden: video.hidden };
      });
    const idle = await framesIn2s();
    expect([idle.width, idle.height], 'decoded frame size').to.deep.equal([640, 640]);
    expect(idle.paused || idle.hidden, 'the <video> is shown and playing').to.equal(false);
    expect(idle.frames, 'frames presented in 2 s between replies').to.be.at.least(6);

    await page.click('#rt-mic');
    // The face speaks the reply (the fake microphone's sentence comes round every ~11 s, and may barge in on it later).
    try {
      await page.waitForSelector('#rt-status[data-agent-speaking="true"]', { timeout: 60_000 });
    } catch (err) {
      throw new Error(
        `${(err as Error).message}\nstatus: ${await statusOf('#rt-status')}\nevents: ${(await page.locator('#rt-log').textContent())?.slice(-3000)}`,
      );
    }
    await page.click('#rt-mic'); // the user listens (the microphone's next sentence would barge in)
    await screenshot(page, 'realtime-avatar-talking');
    const talking = await framesIn2s();
    // The fake microphone loops one sentence every ~11 s: if it was switched on mid-sentence, the turn
    // answered above was only the sentence's tail ("which young man": 2 of its words). Then listen to
    // the next sentence whole; the turn must still be recognized.
    const heardWhole = await waitForSpokenTurn(5_000).then(
      () => true,
      () => false,
    );
    if (!heardWhole) {
      await page.click('#rt-mic');
      await waitForSpokenTurn(40_000);
      await page.click('#rt-mic');
    }
    expect(talking.frames, 'frames presented in 2 s while the face speaks').to.be.at.least(6);
    await page.waitForSelector('#rt-latency li[data-latency-ms]:has-text("spoken")', { timeout: 30_000 });
    const latency = Number(await page.locator('#rt-latency li:has-text("spoken")').first().getAttribute('data-latency-ms'));
    expect(latency).to.be.greaterThan(0).and.lessThan(15_000);
    const replies = await page.locator('#rt-transcript li.assistant').allTextContents();
    expect(
      replies.some((r) => r.startsWith('Hello! I am the face')),
      `the reply's transcript: ${JSON.stringify(replies)}`,
    ).to.equal(true);
    console.log(
      `      browser: avatar call, frames decoded (painted) in 2 s: idle ${idle.frames} (${idle.painted}), talking ${talking.frames} (${talking.painted}); end of speech to first reply sound ${latency} ms`,
    );

    await page.click('#rt-disconnect');
    expect(await page.locator('#rt-video').isHidden(), 'the video goes with the call').to.equal(true);
    expect(await page.locator('#rt-face-image').isDisabled(), 'a new face can be chosen after hanging up').to.equal(false);
  });

  it('talk to the avatar: a photo without a face is refused with a message that says so', async () => {
    const blank = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#7a8a99' } })
      .png()
      .toBuffer();
    await openTab(page, 'realtime');
    // A face needs a call: an earlier test may have left the socket transport chosen.
    await page.selectOption('#rt-transport', 'webrtc');
    await page.setInputFiles('#rt-face-image', { name: 'wall.png', mimeType: 'image/png', buffer: blank });
    expect(await page.locator('#rt-face-samples button[aria-pressed="true"]').count(), 'the upload replaces the sample').to.equal(0);
    await page.click('#rt-connect');
    try {
      await page.waitForSelector('#rt-status[data-error-code="no_face_detected"]', { timeout: 30_000 });
      await page.waitForSelector('#rt-connect:not([disabled])', { timeout: 10_000 });
    } catch (err) {
      throw new Error(
        `${(err as Error).message}\nstatus: ${await statusOf('#rt-status')}\nevents: ${(await page.locator('#rt-log').textContent())?.slice(-2000)}`,
      );
    }
    expect(await statusOf('#rt-status'), 'the message stays after the server ends the call').to.contain('No face was found in that photo');
    await page.click('#rt-face-none');
    expect(await page.locator('#rt-face-preview').isHidden()).to.equal(true);
    await page.fill('#rt-instructions', 'You are a helpful voice assistant. Keep your answers short and conversational.');
  });

  it('talk to the avatar: a server without the live avatar says so (avatar_unavailable)', async () => {
    const without = await startTestServer({ env: { SVC_LIVE_AVATAR_ENABLED: 'false' } });
    const other = await browser.newContext(without.baseUrl);
    try {
      const p = await other.newPage();
      const own = watchPage(p, without.baseUrl);
      await signIn(p, without);
      await openTab(p, 'realtime');
      await p.click('#rt-face-samples button[title="Sample photo 2"]');
      await p.waitForSelector('#rt-face-preview:not([hidden])');
      await p.click('#rt-connect');
      try {
        await p.waitForSelector('#rt-status[data-error-code="avatar_unavailable"]', { timeout: 30_000 });
        await p.waitForSelector('#rt-connect:not([disabled])', { timeout: 10_000 });
      } catch (err) {
        throw new Error(
          `${(err as Error).message}\nstatus: ${await p.locator('#rt-status').textContent()}\nevents: ${(await p.locator('#rt-log').textContent())?.slice(-2000)}`,
        );
      }
      expect(await p.locator('#rt-status').textContent()).to.contain('without the live avatar');
      // the call is refused before its answer (400 avatar_unavailable), which Chromium logs as a failed resource
      const expected = 'Failed to load resource: the server responded with a status of 400 (Bad Request)';
      expect(own.consoleErrors.filter((e) => e !== expected)).to.deep.equal([]);
      expect([...own.failedRequests, ...own.foreignRequests]).to.deep.equal([]);
    } finally {
      await other.close();
      await without.close();
    }
  });

  it('avatar panel says when the server has no video routes, and renders', async () => {
    await openTab(page, 'avatar');
    const doc = await getJson(`${t.baseUrl}/v1/openapi.json`, t.apiKey);
    const hasVideo = Object.hasOwn(doc.body.paths, '/v1/videos/stream');
    expect(await page.locator('#avatar-stream').isDisabled()).to.equal(!hasVideo);
    if (!hasVideo) expect(await statusOf('#avatar-availability')).to.contain('does not offer avatar video yet');
    // A bundled sample photo becomes the face.
    await page.click('#avatar-samples button[title="Sample photo 3"]');
    await page.waitForFunction(() => {
      const img = document.getElementById('avatar-image-preview') as any;
      return !img.hidden && img.complete && img.naturalWidth > 0;
    });
    expect(await page.locator('#avatar-samples button[title="Sample photo 3"]').getAttribute('aria-pressed')).to.equal('true');
    await screenshot(page, 'avatar-desktop');
  });

  it('code boxes: the key is $KEY as in the README (a KEY constant in JavaScript), bodies indented, a picked sample is face.jpg', async () => {
    await openTab(page, 'speech');
    const keyHint = () => page.locator('#panel-speech .code-key span:not([hidden])').textContent();
    expect(await keyHint()).to.equal('Set your key first: export KEY=<your key>');
    await page.selectOption('#speech-format', 'wav');
    await page.click('#speech-play');
    await page.waitForSelector('#speech-status.ok', { timeout: 30_000 });
    const curl = (await page.locator('[data-code="speech"]').textContent())!;
    expect(curl).to.contain('-H "Authorization: Bearer $KEY"');
    await page.click('#panel-speech [data-lang="js"]');
    expect(await keyHint()).to.match(/^Paste your key into KEY on the first line/);
    const js = (await page.locator('[data-code="speech"]').textContent())!;
    expect(js.split('\n')[0]).to.equal("const KEY = '<your key>'; // paste your API key here");
    expect(js).to.contain('Authorization: `Bearer ${KEY}`');
    // The body's members one level inside JSON.stringify( (4 spaces), its closing brace at 2.
    expect(js).to.match(/ {2}body: JSON\.stringify\(\{\n {4}"input": .*\n(?: {4}".*\n)+ {2}\}\),\n/);
    await page.click('#panel-speech [data-lang="curl"]');
    for (const panel of PANELS) {
      await openTab(page, panel);
      for (const lang of ['curl', 'js']) {
        await page.click(`#panel-${panel} [data-lang="${lang}"]`);
        const code = (await page.locator(`[data-code="${panel}"]`).textContent())!;
        expect(code, `${panel} ${lang}`).to.not.contain('SVC_API_KEY');
        // The JavaScript runs in a browser, which has no process.env (a comment may show server code).
        if (lang === 'js')
          expect(
            code.split('\n').filter((l) => !l.startsWith('//') && l.includes('process.env')),
            panel,
          ).to.deep.equal([]);
      }
      await page.click(`#panel-${panel} [data-lang="curl"]`);
    }
    await openTab(page, 'avatar');
    await page.click('#avatar-samples button[title="Sample photo 2"]');
    await page.waitForFunction(() => document.querySelector('[data-code="avatar"]')?.textContent?.includes('curl -o face.jpg'));
    const avatarCurl = (await page.locator('[data-code="avatar"]').textContent())!;
    const sampleUrl = /curl -o face\.jpg (\S+)/.exec(avatarCurl)![1]!;
    expect(sampleUrl.startsWith(`${t.baseUrl}/playground/samples/`)).to.equal(true);
    expect((await fetch(sampleUrl)).headers.get('content-type')).to.match(/^image\//);
    expect(avatarCurl).to.contain('-F ref_image=@face.jpg');
    await screenshot(page, 'avatar-code-sample', false);
  });

  it('JavaScript code boxes run as pasted in a page of the server, with the key or a client secret filled in', async () => {
    // A reader pastes the box into the console of a page this server serves (the API sends no CORS
    // headers) after putting the key, or a client secret the app's server minted, on its first line.
    // They read process.env.KEY before, which a browser does not have, and the WebRTC call a
    // `value` nothing defined.
    const secret = async () => {
      const res = await fetch(`${t.baseUrl}/v1/realtime/client_secrets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      return ((await res.json()) as { value: string }).value;
    };
    const pasted = async (panel: (typeof PANELS)[number]) => {
      await page.click(`#panel-${panel} [data-lang="js"]`);
      const js = (await page.locator(`[data-code="${panel}"]`).textContent())!;
      await page.click(`#panel-${panel} [data-lang="curl"]`);
      const filled = js.replace("'<your key>'", JSON.stringify(t.apiKey)).replace("'<client secret>'", JSON.stringify(await secret()));
      expect(filled, panel).to.not.equal(js);
      return filled;
    };
    /** The box's code as the console runs it (top-level await), then `after` in the same scope. */
    const run = (js: string, after = '') => page.evaluate(`(async () => {\n${js}\n${after}\n})()`);

    await openTab(page, 'speech');
    await page.click('#speech-play');
    await page.waitForSelector('#speech-status.ok', { timeout: 30_000 });
    await run(await pasted('speech'), 'audio.pause();');
    await page.click('#speech-stream');
    await page.waitForSelector('#speech-status.ok', { timeout: 30_000 });
    expect(await run(await pasted('speech'), 'await ctx.close(); return at;')).to.be.above(1); // seconds of speech scheduled

    // Realtime: the session.update the box sends is answered, over both transports (over the
    // WebSocket it starts the session: session.created; a call's session exists from the answer).
    const answered = (channel: string, close: string, answer: string) => `return await new Promise((resolve, reject) => {
  setTimeout(() => reject(new Error('no ${answer}')), 20000);
  ${channel}.addEventListener('message', (m) => {
    const event = JSON.parse(m.data);
    if (event.type === '${answer}') resolve(event.session.instructions);
    if (event.type === 'error') reject(new Error(event.error.message));
  });
}).finally(() => ${close});`;
    await openTab(page, 'realtime');
    const instructions = await page.inputValue('#rt-instructions');
    await page.fill('#rt-instructions', 'Answer in one word.');
    await page.selectOption('#rt-transport', 'webrtc'); // the box shows the controls as they are
    expect(await run(await pasted('realtime'), answered('events', 'pc.close()', 'session.updated'))).to.equal('Answer in one word.');
    await page.selectOption('#rt-transport', 'websocket');
    expect(await run(await pasted('realtime'), answered('ws', 'ws.close()', 'session.created'))).to.equal('Answer in one word.');
    await page.fill('#rt-instructions', instructions);
    await page.selectOption('#rt-transport', 'webrtc');

    // Avatar video, where the server has it: the box fetches the picked sample photo itself.
    const doc = await getJson(`${t.baseUrl}/v1/openapi.json`, t.apiKey);
    if (!Object.hasOwn(doc.body.paths, '/v1/videos/stream')) return;
    await openTab(page, 'avatar');
    await page.click('#avatar-samples button[title="Sample photo 3"]');
    await page.waitForFunction(() => document.querySelector('[data-code="avatar"]')?.textContent?.includes('curl -o face.jpg'));
    expect(await run(await pasted('avatar'), 'await res.body.cancel(); return videoId;')).to.match(/^video_/);
  });

  it("the docs' browser snippets run as pasted in a page of the server: README.md's WebRTC call, docs/video.md's MSE player", async () => {
    // Read from the Markdown as a reader copies them, with what the doc says to fill in: the client
    // secret or the key, and the server's address where the doc writes 127.0.0.1:8080.
    const snippet = (file: string, marker: string) => {
      const blocks = [...readFileSync(resolve(ROOT, file), 'utf8').matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
      const found = blocks.filter((b) => b.includes(marker));
      expect(found, `${file}: one js block with ${marker}`).to.have.length(1);
      return found[0]!.replaceAll("'http://127.0.0.1:8080'", JSON.stringify(t.baseUrl));
    };
    const run = (js: string, after: string) => page.evaluate(`(async () => {\n${js}\n${after}\n})()`);

    const res = await fetch(`${t.baseUrl}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    const secret = ((await res.json()) as { value: string }).value;
    const call = snippet('README.md', "createDataChannel('oai-events')").replace("'<client secret>'", JSON.stringify(secret));
    const first = await run(
      call,
      `return await new Promise((resolve, reject) => {
  setTimeout(() => reject(new Error('no session.created')), 30000);
  events.addEventListener('message', (m) => resolve(JSON.parse(m.data).type));
}).finally(() => pc.close());`,
    );
    expect(first).to.equal('session.created');

    const doc = await getJson(`${t.baseUrl}/v1/openapi.json`, t.apiKey);
    if (!Object.hasOwn(doc.body.paths, '/v1/videos/stream')) return;
    const player = snippet('docs/video.md', 'new MediaSource()').replace("'<your key>'", JSON.stringify(t.apiKey));
    const shown = (await run(
      player,
      `await new Promise((resolve, reject) => {
  setTimeout(() => reject(new Error('the video did not play to its end')), 90000);
  video.addEventListener('ended', resolve, { once: true });
  video.addEventListener('error', () => reject(new Error(video.error.message)), { once: true });
});
const shown = { width: video.videoWidth, height: video.videoHeight, seconds: video.duration };
video.remove();
return shown;`,
    )) as { width: number; height: number; seconds: number };
    expect(shown.width).to.equal(640);
    expect(shown.height).to.equal(640);
    expect(shown.seconds).to.be.above(1); // "Streaming as I speak." is ~1.5 s
  });

  it('avatar: a video plays in the page while it is generated, and a job completes and plays (when the server has video)', async function () {
    const doc = await getJson(`${t.baseUrl}/v1/openapi.json`, t.apiKey);
    if (!Object.hasOwn(doc.body.paths, '/v1/videos/stream')) this.skip(); // the panel's "not yet" state is tested above
    this.timeout(300_000);
    await openTab(page, 'avatar');
    await page.click('#avatar-samples button[title="Sample photo 3"]');
    await page.waitForFunction(() => (document.getElementById('avatar-image-preview') as any).naturalWidth > 0);
    await page.fill('#avatar-text', 'Hello there. I am a talking head, made on this server while you watch.');
    await page.click('#avatar-stream');
    // Playing before the job completes: the first frame is shown while the status still says generating.
    await page.waitForSelector('#avatar-status[data-first-frame-ms]', { timeout: 120_000 });
    const whilePlaying = (await statusOf('#avatar-status'))!;
    expect(whilePlaying).to.contain('while it is generated');
    await page.waitForSelector('#avatar-status.ok', { timeout: 180_000 });
    expect(await statusOf('#avatar-status')).to.match(/stream complete|completed/);
    const played = await page.evaluate(() => (document.getElementById('avatar-video') as any).currentTime);
    expect(played).to.be.greaterThan(0.5);
    console.log(
      `      browser: live avatar video, click to first frame ${await page.locator('#avatar-status').getAttribute('data-first-frame-ms')} ms`,
    );
    await screenshot(page, 'avatar-live-desktop');

    await page.click('#avatar-job');
    await page.waitForSelector('#avatar-status.ok:has-text("completed")', { timeout: 240_000 });
    await page.waitForFunction(() => (document.getElementById('avatar-video') as any).currentTime > 0.3, undefined, { timeout: 20_000 });
    expect(await page.locator('#avatar-history li').count()).to.be.at.least(2);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#avatar-download')]);
    const mp4 = readFileSync((await download.path())!);
    expect(mp4.subarray(4, 8).toString()).to.equal('ftyp');
    await screenshot(page, 'avatar-job-desktop');
  });

  it('avatar player: a live fragmented MP4 plays through MSE before its stream ends (real ffmpeg fMP4, real Chromium MSE)', async () => {
    // The video routes belong to the avatar issue; this runs the page's own stream player on the
    // kind of body the interface describes: fragmented MP4, H.264 + AAC, fragments of 0.5 s.
    const made = spawnSync(
      ffmpeg.path,
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc=size=640x640:rate=25',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:sample_rate=48000',
        '-t',
        '4',
        '-c:v',
        'libx264',
        '-profile:v',
        'baseline',
        '-preset',
        'veryfast',
        '-tune',
        'zerolatency',
        '-pix_fmt',
        'yuv420p',
        '-g',
        '12',
        '-c:a',
        'aac',
        '-movflags',
        'frag_keyframe+empty_moov+default_base_moof',
        '-f',
        'mp4',
        'pipe:1',
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    expect(made.status, made.stderr?.toString()).to.equal(0);
    const fmp4 = made.stdout.toString('base64');
    await openTab(page, 'avatar');
    const result = await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const { mseTypeOf } = await import('/playground/js/mp4-codecs.js' as string);
      const { playStream } = await import('/playground/js/mse-player.js' as string);
      let streamEndedAt = 0;
      let firstFrameAt = 0;
      // The body arrives in 16 KB pieces, 150 ms apart: slower than a local file, like a live render.
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          for (let i = 0; i < bytes.length; i += 16384) {
            controller.enqueue(bytes.slice(i, i + 16384));
            await new Promise((r) => setTimeout(r, 150));
          }
          streamEndedAt = performance.now();
          controller.close();
        },
      });
      const video = document.getElementById('avatar-video') as HTMLVideoElement;
      video.muted = true;
      const played = await playStream(body, video, () => (firstFrameAt = performance.now()));
      await new Promise((r) => setTimeout(r, 300));
      return {
        type: mseTypeOf(bytes),
        played,
        firstFrameAt,
        streamEndedAt,
        currentTime: video.currentTime,
        buffered: video.buffered.length ? video.buffered.end(0) : 0,
      };
    }, fmp4);
    expect(result.type).to.equal('video/mp4; codecs="avc1.42C01E, mp4a.40.2"');
    expect(result.played).to.equal(true);
    expect(result.firstFrameAt, 'playback began before the stream ended').to.be.greaterThan(0).and.lessThan(result.streamEndedAt);
    expect(result.buffered).to.be.greaterThan(3.5);
    expect(result.currentTime).to.be.greaterThan(0.5);
    await screenshot(page, 'avatar-mse-desktop');
    await page.evaluate(() => {
      const video = document.getElementById('avatar-video') as HTMLVideoElement;
      video.pause();
      video.removeAttribute('src');
      video.load();
      video.hidden = true;
    });
  });

  it('the tab bar has no vertical scrollbar, and scrolls sideways when its tabs do not fit', async () => {
    const tabs = () =>
      page.evaluate(() => {
        const el = document.querySelector('.tabs');
        const style = getComputedStyle(el);
        return {
          scrollH: el.scrollHeight,
          clientH: el.clientHeight,
          scrollW: el.scrollWidth,
          clientW: el.clientWidth,
          overflowX: style.overflowX,
        };
      });
    for (const panel of PANELS) {
      await openTab(page, panel);
      const t1 = await tabs();
      // The selected tab once overlapped the bar's border with margin-bottom: -1px: 43 px in a 42 px box.
      expect(t1.scrollH, `${panel}: a vertical scrollbar on the tabs`).to.equal(t1.clientH);
    }
    await screenshot(page, 'tabs-desktop', false);
    // Larger text (a user's zoom): the four tabs no longer fit in 900 px and the bar scrolls sideways.
    await page.setViewportSize({ width: 900, height: 900 });
    await page.addStyleTag({ content: '.tabs [role="tab"] { font-size: 28px; }' });
    const big = await tabs();
    expect(big.overflowX).to.equal('auto');
    expect(big.scrollW, 'the tabs overflow sideways').to.be.greaterThan(big.clientW);
    await page.reload();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForSelector('#signed-in:not([hidden])');
  });

  it('every panel at phone width fits without horizontal scrolling', async () => {
    const phone = await browser.newContext(t.baseUrl, PHONE);
    const p = await phone.newPage();
    const own = watchPage(p, t.baseUrl);
    await signIn(p);
    for (const panel of PANELS) {
      await openTab(p, panel);
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${panel} overflows by ${overflow}px`).to.be.at.most(0);
      await screenshot(p, `${panel}-phone`);
    }
    expect([...own.consoleErrors, ...own.failedRequests, ...own.foreignRequests]).to.deep.equal([]);
    await phone.close();
  });

  it('every panel passes the WCAG 2.1 A/AA checks of axe-core (labels, names, contrast), signed out and in', async () => {
    const p = await context.newPage();
    await p.goto(`${t.baseUrl}/playground`);
    await p.waitForSelector('body[data-ready="true"]');
    expect(await accessibilityViolations(p), 'signed out').to.deep.equal([]);
    await p.close();
    for (const panel of PANELS) {
      await openTab(page, panel);
      expect(await accessibilityViolations(page), panel).to.deep.equal([]);
    }
  });

  it('/docs renders the OpenAPI document with the viewer from npm, and /docs/realtime lists the events', async () => {
    const p = await context.newPage(); // same tab storage is per page: sign in through the form
    const own = watchPage(p, t.baseUrl);
    await p.goto(`${t.baseUrl}/docs`);
    await p.fill('#api-key', t.apiKey);
    await p.click('#signin button[type="submit"]');
    await p.waitForSelector('.swagger-ui .opblock-summary-path', { timeout: 15_000 });
    const paths = await p.locator('.opblock-summary-path').allTextContents();
    expect(paths.map((s) => s.trim())).to.include.members(['/v1/audio/speech', '/v1/audio/voices', '/v1/realtime/client_secrets']);
    await screenshot(p, 'docs-desktop');

    await p.goto(`${t.baseUrl}/docs/realtime`);
    expect(await p.locator('h1').textContent()).to.equal('Realtime WebSocket protocol');
    expect(await p.locator('#ev-session-update').count()).to.equal(1);
    expect(await p.locator('#ev-response-output-audio-delta').count()).to.equal(1);
    expect(await accessibilityViolations(p), '/docs/realtime').to.deep.equal([]);
    await p.setViewportSize({ width: 1280, height: 1400 });
    await screenshot(p, 'realtime-reference-desktop', false);
    expect([...own.consoleErrors, ...own.failedRequests, ...own.foreignRequests]).to.deep.equal([]);
    await p.close();
  });
});
