import { loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { concatPcm } from '@svc/core';
import { mediaClock } from '@svc/adapters-webrtc/media';
import type { RunningServer } from '../src/server.js';
import { SERVER_TOKENS } from '../src/tokens.js';
import { askForReply, placeAvatarCall } from '../test/helpers/avatar-call-page.js';
import {
  decodedFps,
  firstFrameAfterFirstAudio,
  rtpAudioVideoOffset,
  sentFps,
  soundSpans,
  startAvatarRecording,
  stopAvatarRecording,
} from '../test/helpers/avatar-call-probe.js';
import { launchBrowser, roomNoise, waitForPageEvent } from '../test/helpers/browser.js';
import { librivoxSentences, MIC_CLIP_WORDS } from '../test/helpers/librivox.js';
import { dataUri, samplePhoto } from '../test/video/video-helpers.js';
import { percentile, round } from './harness.js';
import { levels10ms, librivoxClips } from './voice-caller.js';

// page.evaluate bodies run in the browser (no DOM library in the server's compilation).
declare const window: any,
  navigator: any,
  RTCPeerConnection: any,
  AudioContext: any,
  AudioWorkletNode: any,
  WebSocket: any,
  performance: any,
  document: any;

/**
 * The sessions' turn detection: `BENCH_WEBRTC_TURN_DETECTION=semantic_vad` measures semantic_vad
 * (its defaults); server_vad with `silence_duration_ms: 500` otherwise.
 */
const TURN_DETECTION: Record<string, unknown> =
  process.env.BENCH_WEBRTC_TURN_DETECTION === 'semantic_vad' ? { type: 'semantic_vad' } : { type: 'server_vad', silence_duration_ms: 500 };
/**
 * The WebRTC client's receiver jitter buffer target (ms), as the playground sets it (0: the least
 * delay); `BENCH_WEBRTC_JITTER_TARGET=browser` leaves the browser's default, `compare` measures a
 * call with each in the same run (the ratio holds on a loaded machine).
 */
const JITTER_ENV = process.env.BENCH_WEBRTC_JITTER_TARGET ?? '0';
const JITTER_TARGETS: Array<number | null> =
  JITTER_ENV === 'compare' ? [0, null] : JITTER_ENV === 'browser' ? [null] : [Number(JITTER_ENV)];
/** The calls measured, one after another: WebRTC with each jitter target, then the WebSocket. */
const RUNS = [
  ...JITTER_TARGETS.map((jitterTarget, i) => ({
    name: i === 0 ? 'webrtc' : 'webrtc, browser jitter target',
    transport: 'webrtc' as const,
    jitterTarget,
  })),
  { name: 'websocket', transport: 'websocket' as const, jitterTarget: null },
];
/**
 * `BENCH_WEBRTC_SENTENCES=five`: the fake microphone says the five LibriVox sentences of the
 * turn-latency bench in turn (each after quiet, a room's noise floor, with 7 s after it), and each is measured
 * once; otherwise the one sentence of the browser tests, looped.
 */
const FIVE_SENTENCES = process.env.BENCH_WEBRTC_SENTENCES === 'five';
/** Turns measured per transport (the fake microphone says a sentence every ~11.5 s). */
const TURNS = Number(process.env.BENCH_WEBRTC_TURNS ?? (FIVE_SENTENCES ? 5 : 6));

/**
 * The five sentences, each after 1 s of quiet (3 s before the first: Chromium plays the file from
 * getUserMedia, before the call connects) and followed by 7 s of it (16 kHz; the quiet is the room's
 * noise floor, as the tests' microphone has).
 */
function fiveSentenceClip(): Int16Array {
  return concatPcm(
    librivoxSentences().flatMap((s, i) => [roomNoise(i === 0 ? 3000 : 1000, 2 * i + 1), s.samples, roomNoise(7000, 2 * i + 2)]),
  );
}

interface Turn {
  /** Last moment the microphone carried speech -> first reply sound at the browser (ms). */
  latency: number;
  /** `speech_stopped` arrival -> first reply sound (the part after the server's silence window). */
  afterStopped: number;
  /** The sentence's onset on the microphone meter -> first reply sound (ms). */
  fromOnset: number;
  /** The sentence's onset -> the last moment the meter carried voice (ms): which sentence it was. */
  voiceSpan: number;
}

/**
 * `npm run bench -- webrtc`: speech end -> first reply audio AT THE BROWSER, WebRTC against the
 * WebSocket, in one run, measured the same way for both. Chromium's fake microphone plays a
 * LibriVox sentence (1 s of quiet, the sentence, 7 s of quiet, looped; the quiet a room's noise floor); one WebAudio meter on the
 * microphone dates the end of speech (last 10 ms window above -34 dBFS), one on what plays dates
 * the reply's first sound. WebRTC: the Opus track (echo cancellation on) and the remote track.
 * WebSocket: the playground's way (AudioWorklet capture to 24 kHz PCM appends, deltas scheduled
 * with WebAudio). Also the server process's CPU per turn for each (werift's DTLS/SRTP and Opus are
 * JavaScript and WASM in the server's process), and over WebRTC the two delays of the send path: the
 * server's first reply samples -> first RTP packet (per reply) and the browser's mean jitter buffer
 * delay (getStats), the receiver asked for `jitterBufferTarget` as the playground does.
 */
export async function benchWebrtc(ctx: {
  baseUrl: string;
  wsUrl: string;
  apiKey: string;
  server: RunningServer;
}): Promise<Record<string, number | string>> {
  const browser = await launchBrowser(FIVE_SENTENCES ? fiveSentenceClip() : undefined);
  const results: Record<string, number | string> = {};
  try {
    const context = await browser.newContext(ctx.baseUrl);
    const page = await context.newPage();
    page.on('console', (m: { type(): string; text(): string }) => {
      if (m.type() === 'error' || m.type() === 'warning') process.stderr.write(`webrtc bench: page ${m.type()}: ${m.text()}\n`);
    });
    // A page the server itself serves (the playground, as its browser tests do): Chromium's local
    // network access checks refused the WebSocket to 127.0.0.1 from a page made up by page.route.
    await page.goto(`${ctx.baseUrl}/playground`);
    process.stderr.write(`webrtc bench: page at ${ctx.baseUrl}\n`);
    await page.evaluate(installClients, TURN_DETECTION);
    const perTransport: Record<string, Turn[]> = {};
    for (const { name: transport, transport: kind, jitterTarget } of RUNS) {
      const secret = await mintSecret(ctx);
      const cpu = process.cpuUsage();
      const load = loadavg()[0]!;
      process.stderr.write(`webrtc bench: ${transport}: starting\n`);
      const callId: string | null = await page.evaluate(([t, s, ws, j]) => window.__bench.start(t, s, ws, j), [
        kind,
        secret,
        ctx.wsUrl,
        jitterTarget,
      ] as const);
      process.stderr.write(`webrtc bench: ${transport}: connected\n`);
      const deadline = Date.now() + (TURNS + 1) * 16_000 + 20_000;
      // One more turn than measured: the first of each transport (connection set-up, cold caches) is dropped.
      while ((await page.evaluate(() => window.__bench.turns.length)) < TURNS + 1) {
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      // the server's own side of the call: each reply's first samples -> its first RTP packet
      const firstPackets = callId
        ? [...(ctx.server.services.get(SERVER_TOKENS.RealtimeCalls)?.find(callId)?.replyFirstPacketDelaysMs() ?? [])]
        : [];
      const jitterBufferMs: number | null = await page.evaluate(() => window.__bench.jitterBufferMs());
      const turns: Turn[] = ((await page.evaluate(() => window.__bench.stop())) as Turn[]).slice(1);
      process.stderr.write(
        `webrtc bench: ${transport}: ${turns.length} turns (${turns.map((x) => Math.round(x.latency)).join(', ')} ms)\n`,
      );
      const fromWords = fromLastWord(turns);
      const used = process.cpuUsage(cpu);
      perTransport[transport] = turns;
      const latencies = turns.map((t) => t.latency);
      const after = turns.map((t) => t.afterStopped);
      results[`${transport}: turns measured`] = `${turns.length} of ${TURNS}`;
      results[`${transport}: speech end -> first reply sound, p50 / p95 (ms)`] =
        `${Math.round(percentile(latencies, 50))} / ${Math.round(percentile(latencies, 95))}`;
      results[`${transport}: speech_stopped -> first reply sound, p50 (ms)`] = Math.round(percentile(after, 50));
      results[
        `${transport}: end of the last word -> first reply sound, p50 / p95 (ms; the onset as metered + the recording's onset-to-word-end)`
      ] = `${Math.round(percentile(fromWords, 50))} / ${Math.round(percentile(fromWords, 95))}`;
      results[`${transport}: each turn, end of the last word -> first reply sound (ms)`] = fromWords.map((x) => Math.round(x)).join(', ');
      results[`${transport}: server process CPU per turn, silences included (ms)`] = Math.round(
        (used.user + used.system) / 1000 / (turns.length + 1),
      );
      if (kind === 'webrtc') {
        results[`${transport}: receiver jitter buffer target asked (ms)`] = jitterTarget ?? 'browser default';
        results[`${transport}: mean jitter buffer delay at the browser (ms)`] = jitterBufferMs === null ? 'n/a' : round(jitterBufferMs, 1);
        results[`${transport}: server, reply first samples -> first RTP packet, p50 / max (ms)`] =
          firstPackets.length === 0
            ? 'none recorded'
            : `${round(percentile(firstPackets, 50), 1)} / ${round(Math.max(...firstPackets), 1)}`;
      }
      results[`${transport}: load average at start`] = round(load, 1);
    }
    const p50 = (t: string) =>
      percentile(
        perTransport[t]!.map((x) => x.latency),
        50,
      );
    results['WebRTC p50 / WebSocket p50'] = round(p50('webrtc') / p50('websocket'), 2);
    await page.close();
    Object.assign(results, await benchAvatarCall(ctx, await context.newPage()));
    results['load average at the end'] = round(loadavg()[0]!, 1);
    await context.close();
  } finally {
    await browser.close();
  }
  return results;
}

/**
 * The sentences the fake microphone says, in order, each with where the page's meter finds its
 * onset and its voice's end (the first and last 10 ms of the recording above its level, -34 dBFS)
 * and where its last word ends (forced alignment), all in ms from the recording's start. Speech
 * starts loud, so the page finds the onset where the recording has it; the end it meters can be
 * 340 ms early ("... for them", docs/benchmarks.md, "The end of speech").
 */
const spoken = (): Array<{ span: number; toWordsEnd: number }> =>
  librivoxClips()
    .filter((c) => FIVE_SENTENCES || c.words === MIC_CLIP_WORDS)
    .map((c) => {
      const loud = levels10ms(new Int16Array(c.pcm.buffer, c.pcm.byteOffset, c.pcm.byteLength / 2)).flatMap((level, i) =>
        level > 0.02 ? [i * 10] : [],
      );
      const onset = loud[0] ?? 0;
      return { span: (loud.at(-1) ?? 0) + 10 - onset, toWordsEnd: c.wordsEndMs - onset };
    });

/**
 * The turns timed from the end of their sentence's last word (the metered onset plus the
 * recording's onset-to-word-end). Which sentence a turn is: they come in the order spoken, so of
 * the orders the loop may have started at, the one whose sentences' spans best match the metered
 * ones (two sentences' spans differ by only 80 ms, their neighbours tell them apart).
 */
function fromLastWord(turns: Turn[]): number[] {
  const sentences = spoken();
  const n = sentences.length;
  const misfit = (start: number) => turns.reduce((sum, t, i) => sum + Math.abs(t.voiceSpan - sentences[(start + i) % n]!.span), 0);
  const start = [...Array(n).keys()].reduce((best, k) => (misfit(k) < misfit(best) ? k : best), 0);
  return turns.map((t, i) => t.fromOnset - sentences[(start + i) % n]!.toWordsEnd);
}

async function mintSecret(ctx: { baseUrl: string; apiKey: string }): Promise<string> {
  const res = await fetch(`${ctx.baseUrl}/v1/realtime/client_secrets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ctx.apiKey}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  return ((await res.json()) as { value: string }).value;
}

/** Runs in the page: both clients, the two meters and the turn timing. */
function installClients(turnDetection: Record<string, unknown>): void {
  const VOICE = 0.02;
  const SOUND = 0.01;
  const session = {
    type: 'realtime',
    model: 'svc-realtime',
    output_modalities: ['audio'],
    audio: { input: { turn_detection: turnDetection } },
  };
  const state: any = { turns: [], lastVoiceAt: 0, onsetAt: 0, awaiting: null, stop: null, pc: null, callId: null };
  const meter = (analyser: any) => {
    const buf = new Float32Array(analyser.fftSize);
    return () => {
      analyser.getFloatTimeDomainData(buf);
      let sum = 0;
      for (const v of buf) sum += v * v;
      return Math.sqrt(sum / buf.length);
    };
  };
  const watch = (micLevel: () => number, replyLevel: () => number) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (micLevel() > VOICE) {
        // voice after a second of none: a sentence starts (the fake microphone leaves 8 s between them)
        if (now - state.lastVoiceAt > 1000) state.onsetAt = now;
        state.lastVoiceAt = now;
      }
      if (state.awaiting && replyLevel() > SOUND) {
        const { speechEnd, onsetAt, stoppedAt } = state.awaiting;
        state.turns.push({
          latency: now - speechEnd,
          afterStopped: now - stoppedAt,
          fromOnset: now - onsetAt,
          voiceSpan: speechEnd - onsetAt,
        });
        state.awaiting = null;
      }
    }, 10);
    return () => clearInterval(timer);
  };
  const onEvent = (e: any) => {
    if (e.type === 'input_audio_buffer.speech_stopped')
      state.awaiting = { speechEnd: state.lastVoiceAt, onsetAt: state.onsetAt, stoppedAt: performance.now() };
  };
  const newAnalyser = (ctx: any) => {
    const a = ctx.createAnalyser();
    a.fftSize = 512; // ~10 ms at 48 kHz
    return a;
  };

  async function startWebRtc(secret: string, jitterTarget: number | null): Promise<() => void> {
    const mic = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
    const ctx = new AudioContext();
    const micAnalyser = newAnalyser(ctx);
    ctx.createMediaStreamSource(mic).connect(micAnalyser);
    const replyAnalyser = newAnalyser(ctx);
    const pc = new RTCPeerConnection();
    const dc = pc.createDataChannel('oai-events');
    const player = document.createElement('audio');
    pc.ontrack = (e: any) => {
      // as the playground's call does (webrtc-call.ts, playAtOnce)
      if (jitterTarget !== null) {
        if ('jitterBufferTarget' in e.receiver) e.receiver.jitterBufferTarget = jitterTarget;
        else if ('playoutDelayHint' in e.receiver) e.receiver.playoutDelayHint = jitterTarget / 1000;
      }
      state.pc = pc;
      const stream = e.streams[0] ?? new window.MediaStream([e.track]);
      // Chromium feeds a remote track to WebAudio only while a media element plays it too.
      player.srcObject = stream;
      void player.play();
      ctx.createMediaStreamSource(stream).connect(replyAnalyser);
    };
    pc.addTrack(mic.getAudioTracks()[0], mic);
    dc.onmessage = (m: any) => onEvent(JSON.parse(m.data));
    dc.onopen = () => dc.send(JSON.stringify({ type: 'session.update', session }));
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    const res = await fetch('/v1/realtime/calls', {
      method: 'POST',
      body: offer.sdp,
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/sdp' },
    });
    await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
    state.callId = (res.headers.get('Location') ?? '').split('/').pop() || null;
    await ctx.resume();
    const unwatch = watch(meter(micAnalyser), meter(replyAnalyser));
    return () => {
      unwatch();
      pc.close();
      mic.getTracks().forEach((t: any) => t.stop());
      void ctx.close();
    };
  }

  async function startWebSocket(secret: string, wsUrl: string): Promise<() => void> {
    const mic = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
    const ctx = new AudioContext();
    await ctx.audioWorklet.addModule('/playground/js/capture-worklet.js');
    const micAnalyser = newAnalyser(ctx);
    const source = ctx.createMediaStreamSource(mic);
    source.connect(micAnalyser);
    const replyAnalyser = newAnalyser(ctx);
    replyAnalyser.connect(ctx.destination);
    const ws = new WebSocket(`${wsUrl}/v1/realtime?model=svc-realtime`, ['realtime', `svc-client-secret.${secret}`]);
    let nextStart = 0;
    ws.onmessage = (m: any) => {
      const e = JSON.parse(m.data);
      onEvent(e);
      if (e.type !== 'response.output_audio.delta') return;
      const bytes = Uint8Array.from(atob(e.delta), (c) => c.charCodeAt(0));
      const view = new DataView(bytes.buffer);
      const n = bytes.length >> 1;
      const buffer = ctx.createBuffer(1, n, 24000);
      const ch = buffer.getChannelData(0);
      for (let i = 0; i < n; i++) ch[i] = view.getInt16(i * 2, true) / 32768;
      const src = ctx.createBufferSource();
      src.buffer = buffer;
      src.connect(replyAnalyser);
      const start = Math.max(ctx.currentTime + 0.03, nextStart);
      src.start(start);
      nextStart = start + buffer.duration;
    };
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onclose = (e: any) => reject(new Error(`the WebSocket closed before it opened: ${e.code} ${e.reason}`));
    });
    ws.onclose = (e: any) => console.warn(`WebSocket closed: ${e.code} ${e.reason}`);
    ws.send(JSON.stringify({ type: 'session.update', session }));
    const node = new AudioWorkletNode(ctx, 'pcm-capture', { processorOptions: { targetRate: 24000, chunkMs: 40 }, numberOfOutputs: 1 });
    node.port.onmessage = (m: any) => {
      const pcm = new Uint8Array(m.data.pcm);
      let s = '';
      for (let i = 0; i < pcm.length; i++) s += String.fromCharCode(pcm[i]);
      if (ws.readyState === 1) ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: btoa(s) }));
    };
    const mute = ctx.createGain();
    mute.gain.value = 0;
    source.connect(node).connect(mute).connect(ctx.destination);
    await ctx.resume();
    const unwatch = watch(meter(micAnalyser), meter(replyAnalyser));
    return () => {
      unwatch();
      ws.close(1000);
      mic.getTracks().forEach((t: any) => t.stop());
      void ctx.close();
    };
  }

  window.__bench = {
    get turns() {
      return state.turns;
    },
    async start(transport: string, secret: string, wsUrl: string, jitterTarget: number | null) {
      state.turns = [];
      state.awaiting = null;
      state.pc = null;
      state.callId = null;
      state.stop = transport === 'webrtc' ? await startWebRtc(secret, jitterTarget) : await startWebSocket(secret, wsUrl);
      return state.callId;
    },
    /** The remote audio's mean jitter buffer delay so far (ms; getStats), null without a call. */
    async jitterBufferMs() {
      if (!state.pc) return null;
      let mean = null;
      (await state.pc.getStats()).forEach((r: any) => {
        if (r.type === 'inbound-rtp' && r.kind === 'audio' && r.jitterBufferEmittedCount > 0)
          mean = (r.jitterBufferDelay / r.jitterBufferEmittedCount) * 1000;
      });
      return mean;
    },
    stop() {
      state.stop?.();
      return state.turns;
    },
  };
}

const AVATAR_REPLY = Array.from({ length: 3 }, (_, i) => `This is sentence number ${i + 1} of a reply that keeps going for a while.`).join(
  ' ',
);

/**
 * A live avatar call (docs/live-avatar.md) in the same browser: face-api's sample photo at
 * 640x480, 3 s idle, then a reply played to its end. The server's own count gives the frames sent
 * per second and the reply's first frame after its first audio on the media clock; the page gives
 * the frames decoded per second (getStats), the A/V offset of what it presented and played (RTP
 * timestamps mapped back to the server's media clock) and the first reply frame after the first
 * reply sound as it presented and played them (helpers/avatar-call-probe.ts).
 */
async function benchAvatarCall(
  ctx: { baseUrl: string; apiKey: string; server: RunningServer },
  page: Page,
): Promise<Record<string, number | string>> {
  await page.goto(`${ctx.baseUrl}/playground`);
  const load = loadavg()[0]!;
  const session = {
    type: 'realtime',
    instructions: `Say exactly: "${AVATAR_REPLY}"`,
    audio: { input: { turn_detection: null } },
    avatar: { ref_image: dataUri(samplePhoto(1), 'image/jpeg'), size: '640x480' },
  };
  const setup = await placeAvatarCall(page, { apiKey: await mintSecret(ctx), session, videoId: 'bench-avatar' });
  if (setup.status !== 201) return { 'avatar call': `refused: ${setup.status} ${setup.answer.slice(0, 200)}` };
  const call = ctx.server.services.get(SERVER_TOKENS.RealtimeCalls)!.find(setup.location.split('/').pop()!)!;
  process.stderr.write('webrtc bench: avatar call connected\n');
  await startAvatarRecording(page, {
    pcExpression: 'window.__pc',
    videoSelector: '#bench-avatar',
    mouth: { x0: 268, y0: 218, x1: 358, y1: 292 },
  });
  const idleFrom = await page.evaluate(() => performance.now() as number);
  const idleFromMedia = mediaClock.now();
  await page.waitForTimeout(3000);
  const idleTo = await page.evaluate(() => performance.now() as number);
  const idleToMedia = mediaClock.now();
  await askForReply(page, 'hello there');
  await waitForPageEvent(page, (e) => e.type === 'output_audio_buffer.stopped', 90_000);
  await page.waitForTimeout(500);
  const rec = await stopAvatarRecording(page);
  const sender = call.videoStats()!;
  await page.evaluate(() => window.__pc.close());
  await page.close();
  const spans = soundSpans(rec).filter(([, end]) => end > idleTo);
  const reply = sender.replies.find((r) => r.audioAtMs > sender.sent[0]!.atMs);
  if (spans.length === 0 || !reply) return { 'avatar call': 'no reply heard or seen' };
  const [replyFrom, replyTo] = [spans[0]![0], spans[spans.length - 1]![1]];
  const mediaTimeOf = (kind: 'audio' | 'video', rtp: number) => call.mediaTimeOf(kind, rtp);
  const offset = rtpAudioVideoOffset(rec, mediaTimeOf, replyFrom, replyTo);
  const atBrowser = firstFrameAfterFirstAudio(rec, mediaTimeOf, reply.audioAtMs);
  const replyS = (replyTo - replyFrom) / 1000;
  return {
    'avatar call (640x480): frames sent per second, idle / reply being generated / reply': `${round(sentFps(sender.sent, idleFromMedia, idleToMedia), 1)} / ${round(sentFps(sender.sent, idleToMedia, reply.audioAtMs), 1)} / ${round(sentFps(sender.sent, reply.audioAtMs, reply.audioAtMs + replyS * 1000), 1)}`,
    'avatar call: frames decoded per second at the browser, idle / reply': `${round(decodedFps(rec, idleFrom, idleTo), 1)} / ${round(decodedFps(rec, replyFrom, replyTo), 1)}`,
    'avatar call: frames skipped / late / sent by the server': `${sender.framesSkipped} / ${sender.framesLate} / ${sender.framesSent}`,
    'avatar call: first reply frame after the first reply audio, server RTP / browser shown-vs-heard (ms)': `${round(reply.frameAfterAudioMs, 0)} / ${round(atBrowser.shownAfterHeardMs, 0)}`,
    'avatar call: A/V offset at the browser, shown minus heard (ms)': round(offset.offsetMs, 0),
    'avatar call: reply length heard (s)': round(replyS, 1),
    'avatar call: load average at start': round(load, 1),
  };
}
