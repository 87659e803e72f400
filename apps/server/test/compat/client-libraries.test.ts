// @test-tier light: real client libraries over real-time sessions
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { Stream } from 'openai/streaming';
import { experimental_generateSpeech as generateSpeech, experimental_transcribe as transcribe } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { OpenAIWhisperAudio } from '@langchain/community/document_loaders/fs/openai_whisper_audio';
import { STT as LiveKitSTT, TTS as LiveKitTTS } from '@livekit/agents-plugin-openai';
import { AudioFrame } from '@livekit/rtc-node';
import { initializeLogger } from '@livekit/agents';
import { RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import { z } from 'zod';
import { decodeWithFfmpeg } from '../helpers/http.js';
import { librivoxSentences, type LibrivoxSentence } from '../helpers/librivox.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { wavFile } from '../helpers/wav.js';
import { wordErrorRate } from '../helpers/wer.js';

/**
 * The client libraries people already use, unchanged, against the real server (issue 18): each is
 * configured only with the server's base URL and an API key, and left on its defaults otherwise
 * (which means OpenAI's model and voice names: the server runs with SVC_OPENAI_MODEL_ALIASES on).
 */
describe('client libraries used unchanged against the real server', function () {
  this.timeout(120_000);
  let t: TestServer;
  let clip: LibrivoxSentence;
  before(async function () {
    requireRecognizer();
    clip = librivoxSentences().find((c) => c.id.endsWith('0880'))!;
    t = await startTestServer({ env: { SVC_OPENAI_MODEL_ALIASES: 'true' } });
  });
  after(async () => t?.close());

  describe('Vercel AI SDK (ai + @ai-sdk/openai)', () => {
    const provider = () => createOpenAI({ apiKey: t.apiKey, baseURL: `${t.baseUrl}/v1` });

    it('generateSpeech with the defaults (voice alloy, mp3) gives speech pocketsphinx understands', async () => {
      const { audio, warnings } = await generateSpeech({
        model: provider().speech('tts-1'),
        text: 'Please call me back when you get home tonight.',
      });
      expect(warnings).to.deep.equal([]);
      expect(audio.mediaType).to.equal('audio/mpeg');
      const pcm = await decodeWithFfmpeg(Buffer.from(audio.uint8Array), 16000);
      expect(pcm.length / 16000).to.be.within(1.5, 6);
      await expectUnderstood(t, pcm, 'please call me back when you get home tonight');
    });

    it('generateSpeech with instructions and another voice name', async () => {
      const { audio } = await generateSpeech({
        model: provider().speech('gpt-4o-mini-tts'),
        text: 'Good evening.',
        voice: 'onyx',
        instructions: 'Speak slowly, like a news anchor.',
        outputFormat: 'wav',
      });
      expect(audio.mediaType).to.equal('audio/wav');
      expect(audio.uint8Array.length).to.be.above(10_000);
    });

    it('transcribe() with the defaults (json) and with verbose_json segments (the figures it validates)', async () => {
      const plain = await transcribe({ model: provider().transcription('whisper-1'), audio: clip.wav });
      expect(wordErrorRate(clip.words, plain.text)).to.be.below(0.5);
      expect(plain.durationInSeconds).to.equal(Math.ceil(clip.seconds));

      // Any OpenAI provider option makes the AI SDK ask for verbose_json and validate OpenAI's
      // segment shape (avg_logprob, compression_ratio, no_speech_prob as numbers): it failed with
      // "Invalid JSON response" before the segments carried them.
      const verbose = await transcribe({
        model: provider().transcription('whisper-1'),
        audio: clip.wav,
        providerOptions: { openai: { timestampGranularities: ['segment'] } },
      });
      expect(verbose.text).to.equal(plain.text);
      expect(verbose.language).to.equal('en');
      expect(verbose.durationInSeconds).to.be.closeTo(clip.seconds, 0.05);
      expect(verbose.segments).to.have.length(1);
      expect(verbose.segments[0]).to.deep.include({ text: verbose.text, startSecond: 0 });
    });
  });

  describe('openai SDK', () => {
    const client = () => new OpenAI({ apiKey: t.apiKey, baseURL: `${t.baseUrl}/v1` });

    it('speech with stream_format "sse", consumed as events, carries the same audio as the pcm stream', async () => {
      const input = 'The weather will be sunny and warm tomorrow morning. We need to buy some milk and bread at the store.';
      const response = await client()
        .audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'coral', input, response_format: 'pcm', stream_format: 'sse' })
        .asResponse();
      expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events: Array<{ type: string; audio?: string; usage?: Record<string, number> }> = [];
      for await (const event of Stream.fromSSEResponse<{ type: string; audio?: string; usage?: Record<string, number> }>(
        response,
        new AbortController(),
      ))
        events.push(event);
      const deltas = events.filter((e) => e.type === 'speech.audio.delta');
      expect(deltas.length).to.be.at.least(2); // one per sentence at least
      expect(events.at(-1)!.type).to.equal('speech.audio.done');
      expect(events.slice(0, -1).every((e) => e.type === 'speech.audio.delta')).to.equal(true);
      const pcm = Buffer.concat(deltas.map((d) => Buffer.from(d.audio!, 'base64')));
      const usage = events.at(-1)!.usage!;
      expect(usage.input_tokens).to.equal(20);
      expect(usage.output_tokens).to.equal(Math.ceil((pcm.length / 2 / 24000) * 20));
      expect(usage.total_tokens).to.equal(usage.input_tokens + usage.output_tokens);

      // The events wrap the raw pcm stream (stream: true, same first-clause split): byte for byte.
      const raw = await fetch(`${t.baseUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini-tts', voice: 'coral', input, response_format: 'pcm', stream: true }),
      });
      expect(pcm.equals(Buffer.from(await raw.arrayBuffer()))).to.equal(true);
    });

    it('transcriptions with stream: true yield transcript.text.delta events as pocketsphinx decodes, then done with usage', async () => {
      const stream = await client().audio.transcriptions.create({
        file: await toFile(clip.wav, 'clip.wav'),
        model: 'gpt-4o-mini-transcribe',
        stream: true,
      });
      const events: Array<{ type: string; delta?: string; text?: string; usage?: Record<string, unknown> }> = [];
      for await (const event of stream) events.push(event as (typeof events)[number]);
      const done = events.at(-1)!;
      expect(done.type).to.equal('transcript.text.done');
      const deltas = events.slice(0, -1);
      expect(deltas.every((e) => e.type === 'transcript.text.delta')).to.equal(true);
      expect(deltas.length).to.be.at.least(2); // words as they settle, then the rest
      expect(deltas.map((d) => d.delta).join('')).to.equal(done.text);
      expect(wordErrorRate(clip.words, done.text!)).to.be.below(0.5);
      expect(done.usage).to.deep.include({
        type: 'tokens',
        input_tokens: Math.ceil(clip.seconds * 10),
        output_tokens: done.text!.split(' ').length,
      });
    });

    it("models.list() and models.retrieve() in OpenAI's list shape", async () => {
      const ids: string[] = [];
      for await (const model of client().models.list()) {
        expect(model.object).to.equal('model');
        expect(model.created).to.be.a('number');
        ids.push(model.id);
      }
      expect(ids).to.include.members([
        'svc-audio-v3-tts',
        'svc-stt-3.1',
        'svc-realtime',
        'svc-avatar',
        'pocketsphinx',
        'tts-1',
        'whisper-1',
        'gpt-realtime',
      ]);
      expect((await client().models.retrieve('gpt-4o-mini-tts-2025-12-15')).id).to.equal('gpt-4o-mini-tts-2025-12-15');
      const missing = await client()
        .models.retrieve('gpt-5')
        .catch((e: unknown) => e);
      expect(missing).to.be.instanceOf(OpenAI.NotFoundError);
    });
  });

  describe('@openai/agents-realtime in Node (its WebSocket transport)', () => {
    it('a session with the default model (gpt-realtime-2.1 in 0.20) runs a tool and answers with its result', async () => {
      // The SDK's default model is OpenAI's newest name; the aliases once stopped at gpt-realtime,
      // so connect() was answered by an error on the SDK's own session.update.
      const calls: string[] = [];
      const weather = tool({
        name: 'get_weather',
        description: 'The weather in a city',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          calls.push(city);
          return `It is sunny in ${city}.`;
        },
      });
      const agent = new RealtimeAgent({ name: 'Assistant', instructions: 'Be brief.', tools: [weather] });
      const session = new RealtimeSession(agent, { transport: 'websocket', tracingDisabled: true, config: { outputModalities: ['text'] } });
      const answered = new Promise<string>((resolve, reject) => {
        session.on('agent_end', (_context, _agent, text) => {
          if (text.includes('sunny')) resolve(text);
        });
        session.on('error', (e) => reject(new Error(JSON.stringify(e.error))));
      });
      await session.connect({ apiKey: t.apiKey, url: `${t.baseUrl.replace(/^http/, 'ws')}/v1/realtime` });
      try {
        session.sendMessage('Use get_weather for Paris.');
        expect(await answered).to.contain('It is sunny in Paris.');
        expect(calls).to.deep.equal(['Paris']);
      } finally {
        session.close();
      }
    });
  });

  describe("LangChain's OpenAIWhisperAudio (@langchain/community)", () => {
    it('loads a recording as a document of its transcript', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-langchain-'));
      try {
        const path = join(dir, 'clip.wav');
        writeFileSync(path, clip.wav);
        const loader = new OpenAIWhisperAudio(path, { clientOptions: { apiKey: t.apiKey, baseURL: `${t.baseUrl}/v1` } });
        const docs = await loader.load();
        expect(docs).to.have.length(1);
        expect(docs[0]!.metadata.source).to.equal(path);
        expect(wordErrorRate(clip.words, docs[0]!.pageContent)).to.be.below(0.5);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe("LiveKit's OpenAI plugin (@livekit/agents-plugin-openai), without a LiveKit server", () => {
    before(() => initializeLogger({ pretty: false, level: 'warn' }));

    it('TTS with its defaults (tts-1, alloy, pcm) gives 24 kHz frames of speech', async () => {
      const tts = new LiveKitTTS({ apiKey: t.apiKey, baseURL: `${t.baseUrl}/v1` });
      const frames: AudioFrame[] = [];
      for await (const audio of tts.synthesize('My brother works at a bank in the city.')) frames.push(audio.frame);
      await tts.close();
      expect(frames.length).to.be.above(0);
      expect(frames.every((f) => f.sampleRate === 24000 && f.channels === 1)).to.equal(true);
      const samples = Int16Array.from(frames.flatMap((f) => Array.from(f.data)));
      const at16k = await decodeWithFfmpeg(wavFile(samples, 24000), 16000);
      await expectUnderstood(t, at16k, 'my brother works at a bank in the city');
    });

    it('STT on the transcriptions endpoint (useRealtime: false, its whisper-1 default)', async () => {
      const stt = new LiveKitSTT({ apiKey: t.apiKey, baseURL: `${t.baseUrl}/v1`, useRealtime: false });
      const frame = new AudioFrame(clip.samples, 16000, 1, clip.samples.length);
      const event = await stt.recognize([frame]);
      expect(event.alternatives?.[0]?.language).to.equal('en');
      expect(wordErrorRate(clip.words, event.alternatives![0]!.text)).to.be.below(0.5);
    });
  });
});

/**
 * The server's own recognizer hears the sentence: at most a third of the words wrong (speech that
 * went through a 64 kb/s mp3 and a resampler, judged by pocketsphinx; noise or silence scores ~1).
 */
async function expectUnderstood(t: TestServer, pcm16k: Int16Array, words: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([wavFile(pcm16k, 16000)], { type: 'audio/wav' }), 'speech.wav');
  const res = await fetch(`${t.baseUrl}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.apiKey}` },
    body: form,
  });
  const { text } = (await res.json()) as { text: string };
  expect(wordErrorRate(words, text), `heard "${text}"`).to.be.at.most(0.34);
}
