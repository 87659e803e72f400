import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { json, metricValue, postJson } from '../helpers/http.js';
import { openSession, type ServerEvent } from '../helpers/realtime-client.js';
import { audioOf, WyomingClient } from '../helpers/wyoming-client.js';
import { dataUri, samplePhoto } from '../video/video-helpers.js';

/**
 * Issue 32, point 1: `voice: default` speaks the text's language, short sentences included, and
 * every path that speaks with the default voice (speech, a video's input_tts, realtime replies,
 * Wyoming) makes the same choice. Real server, real engines.
 */
describe('the default voice speaks the language of a short sentence (real server, every path)', function () {
  this.timeout(180_000);
  let t: TestServer;
  let wyomingPort: number;
  const speech = (body: Record<string, unknown>) => postJson(`${t.baseUrl}/v1/audio/speech`, body, t.apiKey);

  before(async () => {
    t = await startTestServer({ env: { SVC_WYOMING_PORT: '0', SVC_RATE_LIMIT_BURST: '1000' } });
    wyomingPort = t.server.wyoming!.server.address.port;
  });
  after(async () => t?.close());

  /** The voice and language the speech endpoint chose (timestamps JSON), checked against its headers. */
  async function chosen(body: Record<string, unknown>): Promise<{ voice: string; language: string }> {
    const res = await json(await speech({ ...body, timestamps: true }));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.headers.get('x-voice')).to.equal(res.body.voice);
    expect(res.headers.get('x-language')).to.equal(res.body.language);
    return { voice: res.body.voice, language: res.body.language };
  }

  describe('POST /v1/audio/speech', () => {
    it("speaks the issue's short English sentences in English (slt), headers and JSON agreeing", async () => {
      for (const input of [
        'Hello from svc!',
        'Hello, world.',
        'What time is it?',
        'Good morning, how are you today?',
        'Hello! I am a talking head.',
      ]) {
        expect(await chosen({ input }), input).to.deep.equal({ voice: 'slt', language: 'en' });
      }
    });

    it('speaks short Chinese, Japanese and Russian sentences with their own espeak voice', async () => {
      expect(await chosen({ input: '现在几点了？' })).to.deep.include({ language: 'zh' });
      expect((await chosen({ input: '现在几点了？' })).voice).to.match(/^espeak-(zh|cmn)/);
      expect(await chosen({ input: '駅はどこですか？' })).to.deep.equal({ voice: 'espeak-ja', language: 'ja' });
      expect(await chosen({ input: 'Который час?' })).to.deep.equal({ voice: 'espeak-ru', language: 'ru' });
      expect(await chosen({ input: 'Où est la gare ?' })).to.deep.equal({ voice: 'espeak-fr', language: 'fr' });
    });

    it('speaks one-word greetings in their own language ("Hola!" Spanish, "Hej!" Swedish) and "Hello." in English', async () => {
      expect(await chosen({ input: 'Hola!' })).to.deep.equal({ voice: 'espeak-es', language: 'es' });
      expect(await chosen({ input: 'Hej!' })).to.deep.equal({ voice: 'espeak-sv', language: 'sv' });
      expect(await chosen({ input: 'Merhaba.' })).to.deep.equal({ voice: 'espeak-tr', language: 'tr' });
      expect(await chosen({ input: 'Hello.' })).to.deep.equal({ voice: 'slt', language: 'en' });
    });

    it('tn_language still overrides detection, and a named preset keeps its own language', async () => {
      expect(await chosen({ input: 'Hello from svc!', tn_language: 'fr' })).to.deep.equal({ voice: 'espeak-fr', language: 'fr' });
      expect(await chosen({ input: '駅はどこですか？', tn_language: 'en' })).to.deep.equal({ voice: 'slt', language: 'en' });
      expect(await chosen({ input: '駅はどこですか？', voice: 'espeak-de' })).to.deep.equal({ voice: 'espeak-de', language: 'de' });
    });

    it('the streamed (SSE) response names the chosen voice and language in its headers too', async () => {
      const res = await speech({ input: '駅はどこですか？', stream_format: 'sse' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-voice')).to.equal('espeak-ja');
      expect(res.headers.get('x-language')).to.equal('ja');
      await res.arrayBuffer();
    });
  });

  /** Seconds of speech each engine has synthesized so far on this server. */
  async function engineSeconds(): Promise<{ flite: number; espeak: number }> {
    const res = await fetch(`${t.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${t.apiKey}` } });
    expect(res.status).to.equal(200);
    const text = await res.text();
    const of = (engine: string) => metricValue(text, 'svc_speech_synthesized_audio_seconds_total', `engine="${engine}"`);
    return { flite: of('flite'), espeak: of('espeak') };
  }

  it("a video's input_tts: a short English sentence is spoken by Flite (English), a Japanese one by espeak", async () => {
    const photo = dataUri(samplePhoto(1), 'image/jpeg');
    // Each engine speaks once first, so both metric series exist.
    for (const voice of ['slt', 'espeak-ja']) await (await speech({ input: 'Hi there.', voice, response_format: 'pcm' })).arrayBuffer();
    for (const [input, engine] of [
      ['Hello! I am a talking head.', 'flite'],
      ['駅はどこですか？', 'espeak'],
    ] as const) {
      const before = await engineSeconds();
      // The driving speech is synthesized before the job exists; the job is deleted at once (its render is not the point).
      const res = await json(await postJson(`${t.baseUrl}/v1/videos`, { ref_image: photo, input_tts: { input } }, t.apiKey));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      await fetch(`${t.baseUrl}/v1/videos/${res.body.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${t.apiKey}` } });
      const after = await engineSeconds();
      const other = engine === 'flite' ? 'espeak' : 'flite';
      expect(after[engine] - before[engine], `${input}: ${engine} seconds`).to.be.greaterThan(0.3);
      expect(after[other] - before[other], `${input}: ${other} seconds`).to.equal(0);
    }
  });

  /** The PCM of a realtime audio reply that is exactly `text` (the demo model's "Say exactly"). */
  async function realtimeReply(text: string, voice = 'default'): Promise<Buffer> {
    const { client } = await openSession(t.wsUrl, t.apiKey, {
      output_modalities: ['audio'],
      instructions: `Say exactly: "${text}"`,
      audio: { input: { turn_detection: null }, output: { voice } },
    });
    try {
      client.send({ type: 'response.create' });
      const events: ServerEvent[] = [];
      for (let e = await client.next(30_000); e.type !== 'response.done'; e = await client.next(30_000)) events.push(e);
      return Buffer.concat(events.filter((e) => e.type === 'response.output_audio.delta').map((e) => Buffer.from(e.delta, 'base64')));
    } finally {
      await client.close();
    }
  }

  /**
   * Flite is deterministic: the same voice gives the same samples. espeak-ng's samples vary a little
   * from one synthesis to the next (the same voice's lengths stay within a few samples), so espeak
   * speech is matched by length: another voice reads the same text at a clearly different length.
   */
  function expectSpokenBy(actual: Buffer, voice: string, same: Buffer, others: Buffer[], what: string): void {
    if (voice === 'slt') {
      // Identical samples prove the voice; lengths would not (trimmed of their edge silence, two
      // voices can read a short sentence within a few per cent of each other).
      expect(actual.equals(same), `${what}: the samples of ${voice}`).to.equal(true);
      for (const other of others) expect(actual.equals(other), `${what}: not another voice`).to.equal(false);
      return;
    }
    expect(actual.length / same.length, `${what}: the length of ${voice}`).to.be.within(0.98, 1.02);
    for (const other of others) expect(Math.abs(actual.length / other.length - 1), `${what}: not another voice`).to.be.greaterThan(0.1);
  }

  const restPcm = async (input: string, voice: string) =>
    Buffer.from(await (await speech({ input, voice, response_format: 'pcm' })).arrayBuffer());

  it('a realtime reply with the default voice is spoken by the voice the speech endpoint chooses', async () => {
    for (const [text, voice, others] of [
      ['駅はどこですか？', 'espeak-ja', ['slt', 'espeak-zh']],
      ['Hello from svc!', 'slt', ['espeak-nb', 'espeak-ja']],
    ] as const) {
      const rest = await speech({ input: text, response_format: 'pcm' });
      expect(rest.headers.get('x-voice')).to.equal(voice);
      const same = Buffer.from(await rest.arrayBuffer());
      const reply = await realtimeReply(text);
      expectSpokenBy(reply, voice, same, await Promise.all(others.map((o) => restPcm(text, o))), `realtime: ${text}`);
    }
  });
  async function wyomingSpeech(text: string, voice?: Record<string, string>): Promise<Buffer> {
    const c = await WyomingClient.connect(wyomingPort);
    try {
      c.send('synthesize', { text, ...(voice ? { voice } : {}) });
      await c.until('audio-stop');
      const pcm = audioOf(c.events);
      return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    } finally {
      await c.close();
    }
  }

  it('Wyoming without a voice speaks with the voice of the detected language, and voice.language still overrides', async () => {
    for (const [text, voice, others] of [
      ['駅はどこですか？', 'espeak-ja', ['slt', 'espeak-zh']],
      ['Hello from svc!', 'slt', ['espeak-nb', 'espeak-ja']],
      ['Который час?', 'espeak-ru', ['slt', 'espeak-sr']],
    ] as const) {
      const unnamed = await wyomingSpeech(text);
      const others$ = await Promise.all(others.map((name) => wyomingSpeech(text, { name })));
      expectSpokenBy(unnamed, voice, await wyomingSpeech(text, { name: voice }), others$, `Wyoming: ${text}`);
    }
    const hinted = await wyomingSpeech('Hello from svc!', { language: 'fr' });
    expectSpokenBy(
      hinted,
      'espeak-fr',
      await wyomingSpeech('Hello from svc!', { name: 'espeak-fr' }),
      [await wyomingSpeech('Hello from svc!', { name: 'slt' })],
      'Wyoming fr hint',
    );
  });
});
