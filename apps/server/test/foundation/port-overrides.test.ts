import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { REALTIME_TOKENS, SHARED_TOKENS, SPEECH_TOKENS, VIDEO_TOKENS, VOICE_TOKENS } from '@svc/core';
import { resampleInt16 } from '@svc/adapters-runtime';
import { smartTurnTestModel } from '@svc/adapters-testing';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Overrides, type ServiceContainer } from '../../src/container.js';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { getJson, postJson } from '../helpers/http.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { RealtimeClient } from '../helpers/realtime-client.js';
import { RATE, recording } from '../helpers/recorded-speech.js';
import { WebRtcTestClient } from '../helpers/webrtc-client.js';

/** What a test does with the server to make a port be used. */
type Exercise = 'start' | 'speech' | 'voices' | 'video' | 'realtime' | 'transcription' | 'webrtc';

/**
 * Every binding of the composition root, the member through which its consumers use it, and what
 * makes them use it. A binding added to a module without a row here fails the first test.
 */
const BINDINGS: ReadonlyArray<{ token: symbol; member: string; exercise: Exercise }> = [
  { token: SHARED_TOKENS.Logger, member: 'child', exercise: 'start' },
  { token: SHARED_TOKENS.Clock, member: 'now', exercise: 'start' },
  { token: SHARED_TOKENS.IdGenerator, member: 'secret', exercise: 'start' },
  { token: SHARED_TOKENS.Hasher, member: 'sha256', exercise: 'start' },
  { token: SHARED_TOKENS.ApiKeyRepository, member: 'insert', exercise: 'start' },
  { token: SERVER_TOKENS.ManageApiKeys, member: 'authenticate', exercise: 'speech' },
  { token: SERVER_TOKENS.LargeBodies, member: 'take', exercise: 'voices' },
  { token: SERVER_TOKENS.DataSource, member: 'query', exercise: 'start' },
  { token: SERVER_TOKENS.Metrics, member: 'middleware', exercise: 'start' },
  { token: SHARED_TOKENS.RateLimiter, member: 'take', exercise: 'speech' },
  { token: SERVER_TOKENS.SharedRedis, member: 'client', exercise: 'start' },
  { token: SHARED_TOKENS.BlobStore, member: 'put', exercise: 'voices' },
  { token: SHARED_TOKENS.MediaFetcher, member: 'fetch', exercise: 'voices' },
  { token: SPEECH_TOKENS.SpeechSynthesizers, member: 'Symbol(Symbol.iterator)', exercise: 'start' },
  { token: SPEECH_TOKENS.AudioCodec, member: 'encode', exercise: 'speech' },
  { token: SPEECH_TOKENS.LanguageDetector, member: 'detect', exercise: 'speech' },
  { token: SPEECH_TOKENS.VoiceCatalog, member: 'resolve', exercise: 'speech' },
  { token: SPEECH_TOKENS.SynthesizeSpeech, member: 'execute', exercise: 'speech' },
  { token: SERVER_TOKENS.SpeechAtRate, member: '()', exercise: 'speech' },
  { token: VOICE_TOKENS.VoiceRepository, member: 'insertIfAbsent', exercise: 'voices' },
  { token: VOICE_TOKENS.VoiceAnalyzer, member: 'analyze', exercise: 'voices' },
  { token: VOICE_TOKENS.VoiceConverter, member: 'start', exercise: 'voices' },
  { token: SERVER_TOKENS.VoiceUseCases, member: 'register', exercise: 'voices' },
  { token: VOICE_TOKENS.VoiceCloner, member: 'registered', exercise: 'voices' },
  { token: VIDEO_TOKENS.VideoJobRepository, member: 'insert', exercise: 'video' },
  { token: VIDEO_TOKENS.AvatarRenderer, member: 'prepare', exercise: 'video' },
  { token: VIDEO_TOKENS.MediaEncoder, member: 'encodeFragmentedMp4', exercise: 'video' },
  { token: VIDEO_TOKENS.JobQueue, member: 'enqueue', exercise: 'video' },
  { token: SERVER_TOKENS.VideoUseCases, member: 'create', exercise: 'video' },
  { token: REALTIME_TOKENS.ClientSecretRepository, member: 'insert', exercise: 'realtime' },
  { token: REALTIME_TOKENS.MintClientSecret, member: 'execute', exercise: 'realtime' },
  { token: REALTIME_TOKENS.RedeemClientSecret, member: 'execute', exercise: 'realtime' },
  { token: SERVER_TOKENS.RealtimeGatewayDeps, member: 'createSession', exercise: 'realtime' },
  { token: SERVER_TOKENS.RealtimeSessionFactory, member: '()', exercise: 'realtime' },
  { token: SERVER_TOKENS.RealtimeCalls, member: 'create', exercise: 'webrtc' },
  // /hangup asks the phone calls first (a phone call's id is hung up there, a WebRTC call's here)
  { token: SERVER_TOKENS.PhoneCalls, member: 'has', exercise: 'webrtc' },
  { token: SERVER_TOKENS.LiveAvatar, member: 'services', exercise: 'realtime' },
  { token: SERVER_TOKENS.ServerLoadMonitor, member: 'inputAudio', exercise: 'realtime' },
  { token: REALTIME_TOKENS.VoiceDirectory, member: 'exists', exercise: 'realtime' },
  { token: REALTIME_TOKENS.VoiceActivityDetector, member: 'open', exercise: 'realtime' },
  { token: REALTIME_TOKENS.SpeechRecognizer, member: 'openStream', exercise: 'realtime' },
  { token: REALTIME_TOKENS.SpeechRecognitionStatus, member: 'detail', exercise: 'start' },
  { token: SERVER_TOKENS.SelectedRecognizer, member: 'detail', exercise: 'start' },
  { token: SERVER_TOKENS.TranscribeAudio, member: 'execute', exercise: 'transcription' },
  { token: REALTIME_TOKENS.NoiseSuppressor, member: 'open', exercise: 'realtime' },
  { token: REALTIME_TOKENS.Resampler, member: 'open', exercise: 'realtime' },
  // semantic_vad's input keeps as much audio as the model hears (SVC_TURN_MODEL: a test-built model)
  { token: REALTIME_TOKENS.EndOfTurnModel, member: 'contextMs', exercise: 'realtime' },
  { token: REALTIME_TOKENS.LanguageModel, member: 'stream', exercise: 'realtime' },
  { token: REALTIME_TOKENS.QuotaGuard, member: 'consume', exercise: 'realtime' },
  { token: REALTIME_TOKENS.SessionRegistry, member: 'admit', exercise: 'realtime' },
  { token: REALTIME_TOKENS.Admission, member: 'admit', exercise: 'realtime' },
  { token: REALTIME_TOKENS.ReplySpeaker, member: 'speak', exercise: 'realtime' },
  { token: REALTIME_TOKENS.OpusCodec, member: 'createEncoder', exercise: 'realtime' },
  { token: REALTIME_TOKENS.ConversationSummarizer, member: 'summarize', exercise: 'realtime' },
];

/**
 * A stand-in for a port: forwards to a real instance (so the server still works end to end) and
 * records every member its consumers touch (`()` for a call of a function-valued binding).
 */
function recordingStandIn<T extends object>(real: T, used: Set<string>): T {
  return new Proxy(real, {
    get(target, prop) {
      if (prop !== 'then') used.add(String(prop));
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' && !(typeof target === 'function') ? value.bind(target) : value;
    },
    apply(target, thisArg, args) {
      used.add('()');
      return Reflect.apply(target as (...a: unknown[]) => unknown, thisArg, args);
    },
  });
}

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';
const ENV: Record<string, string> = {
  SVC_LLM_CONTEXT_WINDOW_TOKENS: '400', // small enough that a few long items get summarized
  SVC_RATE_LIMIT_BURST: '1000',
  // The stand-ins are built from this environment too (not only the test server's defaults): a
  // loaded machine must not drop the realtime turn as server_overloaded.
  SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: '120000',
  // The spoken reply leaves as fast as it is synthesized (its most lead): the test is about which
  // ports the server uses, not about pacing, and a reply paced in real time costs seconds per server.
  SVC_REALTIME_AUDIO_LEAD_MS: '60000',
};

async function exercise(t: TestServer, what: Exercise): Promise<void> {
  const expectOk = async (res: Response, label: string) => {
    if (!res.ok) throw new Error(`${label}: ${res.status} ${await res.text()}`);
    return res;
  };
  if (what === 'start') {
    await expectOk(await fetch(`${t.baseUrl}/readyz`), 'readyz');
  } else if (what === 'speech') {
    await (
      await expectOk(await postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'Hello there.', response_format: 'mp3' }, t.apiKey), 'speech')
    ).arrayBuffer();
  } else if (what === 'voices') {
    const wav = readFileSync(CLIP);
    // Sent chunked (its length unknown until read): a large body, counted in the key's large transfers.
    const registration = await fetch(`${t.baseUrl}/v1/audio/voices`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
      body: new Blob([JSON.stringify({ ref_audio: wav.toString('base64') })]).stream(),
      duplex: 'half',
    });
    const created = (await (await expectOk(registration, 'register')).json()) as { voice: string };
    await (
      await expectOk(
        await postJson(`${t.baseUrl}/v1/audio/speech`, { input: 'Hello.', voice: created.voice, response_format: 'pcm' }, t.apiKey),
        'cloned speech',
      )
    ).arrayBuffer();
  } else if (what === 'video') {
    const photo = readFileSync(
      join(dirname(createRequire(import.meta.url).resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg'),
    );
    const body = { ref_image: photo.toString('base64'), input_tts: { input: 'Hi.' } };
    const created = (await (await expectOk(await postJson(`${t.baseUrl}/v1/videos`, body, t.apiKey), 'video')).json()) as { id: string };
    const deadline = Date.now() + 60_000;
    for (let status = ''; status !== 'completed'; await new Promise((r) => setTimeout(r, 100))) {
      status = (await getJson(`${t.baseUrl}/v1/videos/${created.id}`, t.apiKey)).body.status;
      if (status === 'failed' || Date.now() > deadline) throw new Error(`video ${status}`);
    }
  } else if (what === 'transcription') {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(CLIP)], { type: 'audio/wav' }), 'clip.wav');
    await (
      await expectOk(
        await fetch(`${t.baseUrl}/v1/audio/transcriptions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${t.apiKey}` },
          body: form,
        }),
        'transcription',
      )
    ).json();
  } else if (what === 'webrtc') {
    const client = new WebRtcTestClient();
    try {
      const res = await client.call(t.baseUrl, t.apiKey);
      if (res.status !== 201) throw new Error(`webrtc call: ${res.status} ${res.body}`);
      await client.waitForType('session.created');
      if (!client.callId) throw new Error('webrtc call: no call id in its Location');
      await expectOk(await postJson(`${t.baseUrl}/v1/realtime/calls/${client.callId}/hangup`, {}, t.apiKey), 'hangup');
    } finally {
      await client.close();
    }
  } else {
    await realtimeTour(t);
  }
}

/** One realtime session touching every realtime port: client secret, VAD, recognizer, model, quota, speaker, opus, summary. */
async function realtimeTour(t: TestServer): Promise<void> {
  const secret = ((await (await postJson(`${t.baseUrl}/v1/realtime/client_secrets`, {}, t.apiKey)).json()) as { value: string }).value;
  const presets: { data: { voice: string }[] } = (await getJson(`${t.baseUrl}/v1/audio/presets`, t.apiKey)).body;
  const voice = presets.data.find((p) => p.voice !== 'default')!.voice;
  const client = RealtimeClient.connect(t.wsUrl, { protocols: ['realtime', `svc-client-secret.${secret}`] });
  try {
    client.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        model: 'svc-realtime',
        output_modalities: ['audio'],
        audio: {
          input: {
            // 24 kHz: the input is resampled once to the detector's and the recognizer's 16 kHz.
            format: { type: 'audio/pcm', rate: 24000 },
            noise_reduction: { type: 'near_field' },
            // semantic_vad: the end-of-turn model's session side is used too
            turn_detection: { type: 'semantic_vad' },
            transcription: { model: 'svc-stt-3.1' },
          },
          output: { format: { type: 'audio/opus', frame_size_ms: 20 }, voice },
        },
      },
    });
    const created = await client.next(10_000);
    if (created.type !== 'session.created') throw new Error(`session: ${JSON.stringify(created)}`);
    // A short utterance (2.8 s): every port is used as much by it as by a longer one, and each
    // server of the test recognizes it once.
    const at24k = resampleInt16(recording('goforward.raw'), RATE, 24000);
    const pcm = Buffer.concat([Buffer.alloc(24000), Buffer.from(at24k.buffer, at24k.byteOffset, at24k.byteLength), Buffer.alloc(72000)]);
    for (let i = 0; i < pcm.length; i += 4800)
      client.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(i, i + 4800).toString('base64') });
    await client.until('conversation.item.input_audio_transcription.completed', 30_000);
    const done = (await client.until('response.done', 30_000)).event;
    if (done.response.status !== 'completed') throw new Error(`response ${JSON.stringify(done.response.status_details)}`);
    const filler = 'more words follow here '.repeat(7);
    for (let i = 0; i < 8; i++) {
      client.send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Fact ${i}. ${filler}` }] },
      });
    }
    await client.until('conversation.context.summarized', 10_000);
  } finally {
    await client.close();
  }
}

/**
 * Groups of bindings that can be replaced together: none depends (directly or not) on another in
 * its group, so each stand-in is what the server's own defaults receive.
 */
function independentGroups(tokens: symbol[], deps: ReadonlyMap<symbol, ReadonlySet<symbol>>): symbol[][] {
  const below = (t: symbol, seen = new Set<symbol>()): Set<symbol> => {
    for (const d of deps.get(t) ?? []) if (!seen.has(d)) below(d, seen.add(d));
    return seen;
  };
  const related = (a: symbol, b: symbol) => below(a).has(b) || below(b).has(a);
  const groups: symbol[][] = [];
  for (const t of tokens) {
    const group = groups.find((g) => g.every((o) => !related(t, o)));
    if (group) group.push(t);
    else groups.push([t]);
  }
  return groups;
}

describe('every binding of the composition root can be overridden (buildContainer(config, overrides))', function () {
  this.timeout(300_000);
  let dataDir: string;
  let base: ServiceContainer;

  before(async () => {
    requireRecognizer();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-ports-'));
    // An end-of-turn model is bound only when one is configured: a test-built one of its signature.
    ENV.SVC_TURN_MODEL = join(dataDir, 'smart-turn-test.onnx');
    writeFileSync(ENV.SVC_TURN_MODEL, smartTurnTestModel());
    // The shared engines get their own data directory: each test server empties <dataDir>/tmp at
    // start, which would pull the scratch space from under the base container's flite workers.
    const baseConfig = loadConfig({ SVC_DATA_DIR: join(dataDir, 'base'), SVC_LOG_LEVEL: 'silent', ...ENV });
    base = await buildContainer(baseConfig);
    // Started like a server's: a stand-in of its video use cases enqueues on its queue, which its
    // own video module consumes (binding alone starts nothing).
    await base.start({ config: baseConfig, get: base.get });
  });
  after(async () => {
    await base?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the table above names every binding of every module', () => {
    const named = new Set(BINDINGS.map((b) => b.token));
    const missing = [...base.tokens.keys()].filter((t) => !named.has(t)).map((t) => t.description);
    expect(missing, 'bindings without a row in BINDINGS').to.deep.equal([]);
    expect(BINDINGS.filter((b) => !base.tokens.has(b.token)).map((b) => b.token.description)).to.deep.equal([]);
  });

  it('an override of a token no module binds is refused (a typo is not silently ignored)', async () => {
    const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' });
    let error: unknown;
    await buildContainer(config, new Map([[Symbol.for('svc.NoSuchPort'), {}]])).catch((err) => (error = err));
    expect(String(error)).to.contain('svc.NoSuchPort');
  });

  it('each stand-in is used by the running server in place of the default', async () => {
    const tokens = BINDINGS.map((b) => b.token);
    // Engines no group replaces are shared from the base container (started once, not per server).
    const leaves = tokens.filter((t) => (base.dependencies.get(t)?.size ?? 0) === 0);
    const unused: string[] = [];
    for (const group of independentGroups(tokens, base.dependencies)) {
      const used = new Map(group.map((t) => [t, new Set<string>()]));
      const overrides: Overrides = new Map();
      for (const leaf of leaves) overrides.set(leaf, base.get(leaf));
      for (const t of group) overrides.set(t, recordingStandIn(base.get<object>(t), used.get(t)!));
      const t = await startTestServer({ dataDir, env: ENV, overrides });
      try {
        const rows = BINDINGS.filter((b) => group.includes(b.token));
        for (const what of ['start', 'speech', 'voices', 'video', 'realtime', 'transcription', 'webrtc'] as const) {
          if (rows.some((r) => r.exercise === what)) await exercise(t, what);
        }
        for (const row of rows) {
          if (!used.get(row.token)!.has(row.member)) {
            unused.push(`${row.token.description}.${row.member} (touched: ${[...used.get(row.token)!].join(', ') || 'nothing'})`);
          }
        }
      } finally {
        await t.close();
      }
    }
    expect(unused, 'stand-ins the server did not use').to.deep.equal([]);
  });
});
