import { expect } from 'chai';
import { decodeWithFfmpeg, getJson, postJson } from '../helpers/http.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { RealtimeClient, openSession, takeViolations } from '../helpers/realtime-client.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createVideo, dataUri, pollVideo, samplePhoto } from '../video/video-helpers.js';

const speech = (t: TestServer, body: Record<string, unknown>) => postJson(`${t.baseUrl}/v1/audio/speech`, body, t.apiKey);

async function errorOf(res: Response): Promise<{ status: number; type: string; param: string | null }> {
  const body = (await res.json()) as { error: { type: string; param: string | null } };
  return { status: res.status, type: body.error.type, param: body.error.param };
}

/** The `data:` payloads of a text/event-stream body, with the event name when one was sent. */
async function sseEvents(res: Response): Promise<Array<{ event: string | null; data: Record<string, any> }>> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? null;
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) as Record<string, any> };
    });
}

const seconds = (wav: ArrayBuffer): number => (wav.byteLength - 44) / 2 / 24000;

async function transcribe(t: TestServer, fields: Record<string, string>, wav: Buffer): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([wav], { type: 'audio/wav' }), 'clip.wav');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return fetch(`${t.baseUrl}/v1/audio/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${t.apiKey}` }, body: form });
}

describe('OpenAI drop-in behaviour of the HTTP API (default settings: OpenAI model names off)', function () {
  this.timeout(120_000);
  let t: TestServer;
  before(async function () {
    requireRecognizer();
    t = await startTestServer();
  });
  after(async () => t?.close());

  describe('speech: stream_format', () => {
    it("'audio' is the plain response; an unknown value and 'sse' with stream: false are invalid_parameter", async () => {
      const audio = await speech(t, { input: 'Hello.', stream_format: 'audio', response_format: 'wav' });
      expect(audio.status).to.equal(200);
      expect(audio.headers.get('content-type')).to.equal('audio/wav');
      expect(await errorOf(await speech(t, { input: 'Hello.', stream_format: 'websocket' }))).to.deep.equal({
        status: 400,
        type: 'invalid_parameter',
        param: 'stream_format',
      });
      expect(await errorOf(await speech(t, { input: 'Hello.', stream_format: 'sse', stream: false }))).to.deep.equal({
        status: 400,
        type: 'invalid_parameter',
        param: 'stream_format',
      });
      expect(await errorOf(await speech(t, { input: 'Hello.', stream_format: 'sse', speed: 2 }))).to.deep.include({
        status: 400,
        param: 'speed',
      });
    });

    it("'sse' in mp3: the deltas joined are one playable mp3 file; an error before the first delta is a plain error response", async () => {
      const res = await speech(t, { input: 'First sentence here. And a second one after it.', stream_format: 'sse' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const events = await sseEvents(res);
      expect(events.every((e) => e.event === null)).to.equal(true);
      const deltas = events.filter((e) => e.data.type === 'speech.audio.delta');
      expect(deltas.length).to.equal(events.length - 1);
      expect(Object.keys(deltas[0]!.data)).to.deep.equal(['type', 'audio']);
      expect(Object.keys(events.at(-1)!.data)).to.deep.equal(['type', 'usage']);
      const mp3 = Buffer.concat(deltas.map((d) => Buffer.from(d.data.audio as string, 'base64')));
      const pcm = await decodeWithFfmpeg(mp3, 16000);
      expect(pcm.length / 16000).to.be.within(2, 8);

      const unknown = await speech(t, { input: 'Hello.', voice: 'nobody', stream_format: 'sse' });
      expect(unknown.headers.get('content-type')).to.match(/^application\/json/);
      expect(await errorOf(unknown)).to.deep.include({ status: 404, type: 'voice_not_found' });
    });

    it("'sse' in wav: the file cannot be cut before its length is known, so it comes as one delta", async () => {
      const events = await sseEvents(await speech(t, { input: 'One. Two. Three.', stream_format: 'sse', response_format: 'wav' }));
      expect(events.map((e) => e.data.type)).to.deep.equal(['speech.audio.delta', 'speech.audio.done']);
      const wav = Buffer.from(events[0]!.data.audio as string, 'base64');
      expect(wav.toString('ascii', 0, 4)).to.equal('RIFF');
      expect(wav.readUInt32LE(40)).to.equal(wav.length - 44);
    });
  });

  describe('speech: instructions', () => {
    it('"speak slowly" gives longer audio than none, and the header says which tags were applied', async () => {
      const input = 'The weather will be sunny and warm tomorrow morning.';
      const plain = await speech(t, { input, response_format: 'wav' });
      expect(plain.headers.get('x-instructions-applied')).to.equal(null);
      const slow = await speech(t, { input, response_format: 'wav', instructions: 'Please speak slowly.' });
      expect(slow.headers.get('x-instructions-applied')).to.equal('prosody:slow');
      const [plainSeconds, slowSeconds] = [seconds(await plain.arrayBuffer()), seconds(await slow.arrayBuffer())];
      console.log(`      ${plainSeconds.toFixed(2)} s plain, ${slowSeconds.toFixed(2)} s with "speak slowly"`);
      expect(slowSeconds / plainSeconds).to.be.above(1.15);

      const ignored = await speech(t, { input, response_format: 'wav', instructions: 'Sound like a pirate captain.' });
      expect(ignored.headers.get('x-instructions-applied')).to.equal('none');
      expect(await errorOf(await speech(t, { input, instructions: 'x'.repeat(4097) }))).to.deep.equal({
        status: 400,
        type: 'invalid_parameter',
        param: 'instructions',
      });
      expect(await errorOf(await speech(t, { input, instructions: 42 }))).to.deep.include({ status: 400, param: 'instructions' });
    });
  });

  describe("speech: OpenAI's voice names", () => {
    it('are listed with what they alias, speak, and can never be deleted', async () => {
      const presets = (await getJson(`${t.baseUrl}/v1/audio/presets`, t.apiKey)).body.data as Array<Record<string, string>>;
      const alloy = presets.find((p) => p.voice === 'alloy')!;
      expect(alloy).to.deep.include({ alias_of: 'slt', engine: 'flite', gender: 'neutral' });
      expect(presets.find((p) => p.voice === 'onyx')).to.deep.include({ alias_of: 'rms', gender: 'male' });
      expect(presets.filter((p) => p.alias_of).map((p) => p.voice)).to.have.length(13);

      const res = await speech(t, { input: 'Hello.', voice: 'onyx', response_format: 'wav' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-voice')).to.equal('rms');
      const del = await fetch(`${t.baseUrl}/v1/audio/voices/alloy`, { method: 'DELETE', headers: { Authorization: `Bearer ${t.apiKey}` } });
      expect(await errorOf(del)).to.deep.include({ status: 403, type: 'voice_not_deletable' });
    });

    it("speak another language with that language's voice; a language no installed voice speaks is voice_language_unsupported", async () => {
      const french = await speech(t, { input: 'Bonjour à tous.', voice: 'nova', tn_language: 'fr', response_format: 'wav' });
      expect(french.status).to.equal(200);
      expect(french.headers.get('x-voice')).to.equal('espeak-fr');
      expect(await errorOf(await speech(t, { input: 'Kia ora.', voice: 'nova', tn_language: 'xx' }))).to.deep.equal({
        status: 400,
        type: 'voice_language_unsupported',
        param: 'tn_language',
      });
    });

    it("work in a realtime session (audio.output.voice) and in a video's input_tts", async () => {
      const { client, created } = await openSession(t.wsUrl, t.apiKey, {
        output_modalities: ['audio'],
        audio: { input: { turn_detection: null }, output: { voice: 'marin' } },
      });
      expect(created.session.audio.output.voice).to.equal('marin');
      client.send({
        type: 'response.create',
        response: { input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello.' }] }] },
      });
      const { skipped } = await client.until('response.done', 30_000);
      expect(skipped.some((e) => e.type === 'response.output_audio.delta')).to.equal(true);
      await client.close();
      expect(takeViolations()).to.deep.equal([]);

      const video = await createVideo(t.baseUrl, t.apiKey, {
        ref_image: dataUri(samplePhoto(3), 'image/jpeg'),
        input_tts: { input: 'Hi.', voice: 'cedar' },
        size: '480x640',
      });
      expect(video.status).to.equal(200);
      const { id } = (await video.json()) as { id: string };
      const states = await pollVideo(t.baseUrl, t.apiKey, id);
      expect(states.at(-1)!.status).to.equal('completed');
    });
  });

  describe('model names', () => {
    it("OpenAI's names are refused by default, for speech and realtime; /v1/models lists only the service's own", async () => {
      expect(await errorOf(await speech(t, { input: 'Hello.', model: 'tts-1' }))).to.deep.include({
        status: 400,
        type: 'invalid_parameter',
        param: 'model',
      });
      const client = RealtimeClient.connect(t.wsUrl, { apiKey: t.apiKey, query: '?model=gpt-realtime' });
      client.send({ type: 'session.update', session: { type: 'realtime' } });
      expect((await client.next()).error).to.deep.include({ param: 'session.model' });
      await client.closed;

      const list = await getJson(`${t.baseUrl}/v1/models`, t.apiKey);
      expect(list.body.object).to.equal('list');
      const ids = (list.body.data as Array<{ id: string }>).map((m) => m.id);
      expect(ids).to.deep.equal(['svc-audio-v3-tts', 'svc-stt-3.1', 'svc-realtime', 'svc-avatar', 'pocketsphinx']);
      expect((await getJson(`${t.baseUrl}/v1/models/svc-realtime`, t.apiKey)).body).to.deep.include({
        id: 'svc-realtime',
        object: 'model',
        owned_by: 'svc',
      });
      expect(
        await errorOf(await fetch(`${t.baseUrl}/v1/models/tts-1`, { headers: { Authorization: `Bearer ${t.apiKey}` } })),
      ).to.deep.equal({ status: 404, type: 'model_not_found', param: 'model' });
      expect((await fetch(`${t.baseUrl}/v1/models`)).status).to.equal(401);
    });
  });

  describe('transcriptions', () => {
    const clip = () => librivoxSentences().find((c) => c.id.endsWith('0920'))!;

    it("verbose_json segments carry every field of OpenAI's shape, as numbers, with pocketsphinx's figures", async () => {
      const body = (await (await transcribe(t, { response_format: 'verbose_json' }, clip().wav)).json()) as Record<string, any>;
      const [segment] = body.segments as Array<Record<string, unknown>>;
      expect(Object.keys(segment!)).to.deep.equal([
        'id',
        'seek',
        'start',
        'end',
        'text',
        'tokens',
        'temperature',
        'avg_logprob',
        'compression_ratio',
        'no_speech_prob',
      ]);
      expect(segment).to.deep.include({ id: 0, seek: 0, start: 0, tokens: [], temperature: 0 });
      expect(segment!.avg_logprob).to.be.within(-3, 0);
      expect(segment!.compression_ratio).to.be.within(0.5, 2.4);
      expect(segment!.no_speech_prob).to.be.within(0, 0.3);
      expect(body.usage).to.deep.equal({ type: 'duration', seconds: Math.ceil(clip().seconds) });
    });

    it("stream: true gives OpenAI's events; only json and text stream; a bad value or bad audio is a plain error", async () => {
      const res = await transcribe(t, { stream: 'true', response_format: 'text' }, clip().wav);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events = await sseEvents(res);
      const done = events.at(-1)!.data;
      expect(done.type).to.equal('transcript.text.done');
      expect(Object.keys(events[0]!.data)).to.deep.equal(['type', 'delta']);
      expect(
        events
          .slice(0, -1)
          .map((e) => e.data.delta)
          .join(''),
      ).to.equal(done.text);
      expect(done.usage).to.deep.include({
        type: 'tokens',
        input_tokens: Math.ceil(clip().seconds * 10),
        total_tokens: done.usage.input_tokens + done.usage.output_tokens,
      });
      expect(done.usage.input_token_details).to.deep.equal({ audio_tokens: Math.ceil(clip().seconds * 10), text_tokens: 0 });

      expect(await errorOf(await transcribe(t, { stream: 'true', response_format: 'srt' }, clip().wav))).to.deep.equal({
        status: 400,
        type: 'invalid_parameter',
        param: 'stream',
      });
      expect(await errorOf(await transcribe(t, { stream: 'yes' }, clip().wav))).to.deep.equal({
        status: 400,
        type: 'invalid_parameter',
        param: 'stream',
      });
      const notAudio = await transcribe(t, { stream: 'true' }, Buffer.from('this is not audio at all, just some text bytes'));
      expect(notAudio.headers.get('content-type')).to.match(/^application\/json/);
      expect(await errorOf(notAudio)).to.deep.include({ status: 400, type: 'invalid_audio' });
    });
  });
});
