import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REALTIME_TOKENS } from '@svc/core';
import type { PocketsphinxSpeechRecognizer } from '@svc/adapters-speech-recognition';
import { writePiperVoice } from '@svc/adapters-testing';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { wordErrorRate } from '../helpers/wer.js';
import { decodeWithFfmpeg, postJson } from '../helpers/http.js';
import { audioOf, sendRecording, WyomingClient } from '../helpers/wyoming-client.js';
import { registerJson, b64 } from '../voices/voice-helpers.js';
import { waitUntil } from '../helpers/wait-until.js';

/** The id a key given in SVC_API_KEYS gets (ManageApiKeys): `key_cfg_` and the first 16 hex digits of its SHA-256. */
const configuredKeyId = (secret: string) => `key_cfg_${createHash('sha256').update(secret).digest('hex').slice(0, 16)}`;
const RATE = 22050;
const seconds = (samples: Int16Array) => samples.length / RATE;
const pcmOf = (wav: Buffer) => wav.subarray(wav.indexOf('data') + 8);

describe('Wyoming server (real server, a Wyoming client written from the protocol description)', function () {
  this.timeout(180_000);
  const portKey = 'svc-wyoming-port-key-for-tests';
  let t: TestServer;
  let port: number;
  let modelsDir: string;
  let clonedVoice: string;
  let otherKeysVoice: string;

  before(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'svc-wyoming-models-'));
    await writePiperVoice(modelsDir, 'en_US-test-medium', { sampleRate: 22050 });
    t = await startTestServer({
      env: {
        SVC_WYOMING_PORT: '0',
        SVC_API_KEYS: portKey,
        SVC_WYOMING_API_KEY_ID: configuredKeyId(portKey),
        SVC_MODELS_DIR: modelsDir,
        SVC_RATE_LIMIT_BURST: '1000',
        SVC_VOICE_BASE_PRESETS: 'slt,rms,awb',
      },
    });
    port = t.server.wyoming!.server.address.port;
    // A voice of the port's key, and one of another key, registered through the REST API from a real reader.
    const reference = librivoxSentences()[0]!;
    const mine = await registerJson(t, portKey, {
      ref_audio: b64(reference.wav),
      ref_text: reference.words,
      description: 'LibriVox reader',
    });
    expect(mine.status, JSON.stringify(mine.body)).to.equal(200);
    clonedVoice = mine.body.voice;
    const theirs = await registerJson(t, t.apiKey, { ref_audio: b64(librivoxSentences()[1]!.wav) });
    expect(theirs.status, JSON.stringify(theirs.body)).to.equal(200);
    otherKeysVoice = theirs.body.voice;
  });
  after(async () => {
    await t?.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  async function synthesize(text: string, voice?: Record<string, string>): Promise<WyomingClient> {
    const c = await WyomingClient.connect(port);
    c.send('synthesize', { text, ...(voice ? { voice } : {}) });
    await c.until('audio-stop');
    await c.close();
    return c;
  }

  it("describe -> info: presets, the neural voice and the key's registered voice; the recognizer; all data in the data block", async () => {
    const c = await WyomingClient.connect(port);
    c.send('describe');
    const info = await c.until('info');
    await c.close();
    // The header line stays small however many voices there are: the reference client reads at most 64 KiB of it.
    expect(info.headerLine.length).to.be.lessThan(200);
    expect(JSON.parse(info.headerLine)).to.include({ type: 'info' }).and.to.have.property('data_length').above(1000);
    const tts = (info.data.tts as any[])[0];
    expect(tts).to.include({ installed: true, supports_synthesize_streaming: true });
    const byName = new Map((tts.voices as any[]).map((v) => [v.name, v]));
    expect(byName.get('slt')).to.deep.include({ installed: true, languages: ['en-US'] });
    expect(byName.get('slt').attribution).to.have.keys('name', 'url');
    expect(byName.get('piper-en_us-test-medium')).to.deep.include({ installed: true, languages: ['en-US'] });
    // OpenAI's voice names, as the catalog maps them (GET /v1/audio/presets lists the same).
    expect(byName.get('alloy'))
      .to.deep.include({ installed: true })
      .and.to.have.property('description')
      .that.matches(/alias of /);
    expect(byName.get(clonedVoice))
      .to.deep.include({ installed: true })
      .and.to.have.property('description')
      .that.contains('LibriVox reader');
    expect(byName.get(clonedVoice).languages).to.have.length.above(0);
    // Another key's voice is not listed.
    expect(byName.has(otherKeysVoice)).to.equal(false);
    const asr = (info.data.asr as any[])[0];
    expect(asr).to.include({ installed: true, supports_transcript_streaming: true });
    expect(asr.models).to.deep.equal([
      {
        name: 'pocketsphinx',
        attribution: asr.models[0].attribution,
        installed: true,
        description: 'pocketsphinx',
        version: null,
        languages: ['en'],
      },
    ]);
  });

  it('synthesize with a preset: audio-start, audio-chunks (22.05 kHz, 16-bit mono, at most 1024 samples), audio-stop', async () => {
    const c = await synthesize('Hello from the Wyoming port. This is the second sentence.', { name: 'slt' });
    const types = c.events.map((e) => e.type);
    expect(types[0]).to.equal('audio-start');
    expect(types.at(-1)).to.equal('audio-stop');
    expect(new Set(types.slice(1, -1))).to.deep.equal(new Set(['audio-chunk']));
    expect(c.events[0]!.data).to.include({ rate: RATE, width: 2, channels: 1 });
    for (const e of c.of('audio-chunk')) {
      expect(e.data).to.include({ rate: RATE, width: 2, channels: 1 });
      expect(e.payload!.length).to.be.at.most(2048);
    }
    expect(seconds(audioOf(c.events))).to.be.within(2, 8);
  });

  it('the neural test voice speaks what the REST API speaks (same duration)', async () => {
    const text = 'Hello world. Second sentence here.';
    const c = await synthesize(text, { name: 'piper-en_us-test-medium' });
    const rest = await postJson(
      `${t.baseUrl}/v1/audio/speech`,
      { input: text, voice: 'piper-en_us-test-medium', response_format: 'wav' },
      t.apiKey,
    );
    const restSeconds = (await decodeWithFfmpeg(Buffer.from(await rest.arrayBuffer()), 24000)).length / 24000;
    expect(seconds(audioOf(c.events))).to.be.closeTo(restSeconds, 0.05);
  });

  it("speaks the port key's registered voice, and refuses another key's voice (voice_not_found, connection closed)", async () => {
    const c = await synthesize('A cloned voice over Wyoming.', { name: clonedVoice });
    expect(seconds(audioOf(c.events))).to.be.above(1);

    const other = await WyomingClient.connect(port);
    other.send('synthesize', { text: 'Not my voice.', voice: { name: otherKeysVoice } });
    const error = await other.until('error');
    expect(error.data).to.include({ code: 'voice_not_found' });
    await other.closed;
    expect(other.of('audio-chunk')).to.have.length(0);
  });

  it('picks a voice from voice.language without a name, and honours inline tags (a 1 s pause)', async () => {
    const plain = seconds(audioOf((await synthesize('One two three.', { language: 'en_US' })).events));
    const tagged = 'One <|prosody:pause=1s|> two three.';
    const paused = seconds(audioOf((await synthesize(tagged, { language: 'en_US' })).events));
    // The second of silence, plus the edges of the two pieces it splits the sentence into; as the REST API renders it.
    expect(paused - plain).to.be.within(1, 1.8);
    const rest = await postJson(`${t.baseUrl}/v1/audio/speech`, { input: tagged, response_format: 'wav' }, t.apiKey);
    expect(paused).to.be.closeTo((await decodeWithFfmpeg(Buffer.from(await rest.arrayBuffer()), 24000)).length / 24000, 0.05);
  });

  it('streaming synthesis speaks the first sentence before the text has ended, and the compatibility synthesize is not spoken twice', async () => {
    const sentences = ['The kitchen light is on.', ' The front door is locked.', ' It is twenty degrees inside.'];
    const whole = sentences.join('');
    const oneShot = seconds(audioOf((await synthesize(whole, { name: 'slt' })).events));

    const c = await WyomingClient.connect(port);
    c.send('synthesize-start', { voice: { name: 'slt' } });
    const firstChunkSent = performance.now();
    for (const word of sentences[0]!.split(/(?<= )/)) c.send('synthesize-chunk', { text: word });
    c.send('synthesize-chunk', { text: ' The' });
    // The first sentence is complete once the next one has begun: its audio comes while the rest is unsent.
    const firstAudio = await c.until('audio-chunk', 20_000);
    console.log(`      first audio ${(firstAudio.at - firstChunkSent).toFixed(0)} ms after the first chunk`);
    for (const word of (sentences[1]!.slice(4) + sentences[2]).split(/(?<= )/)) c.send('synthesize-chunk', { text: word });
    // Home Assistant then sends the whole text again, for servers without streaming.
    c.send('synthesize', { text: whole, voice: { name: 'slt' } });
    c.send('synthesize-stop');
    await c.until('synthesize-stopped');
    await c.close();
    const types = c.events.map((e) => e.type);
    expect(types[0]).to.equal('audio-start');
    expect(types.slice(-2)).to.deep.equal(['audio-stop', 'synthesize-stopped']);
    expect(c.of('audio-start')).to.have.length(1);
    // Spoken once: as long as the one-shot request (sentence pauses aside), not twice as long.
    expect(seconds(audioOf(c.events))).to.be.closeTo(oneShot, oneShot * 0.15);
  });

  it('transcribes the five LibriVox sentences (transcript-start, chunks, transcript, transcript-stop): WER as the transcription endpoint', async () => {
    let errors = 0;
    let words = 0;
    for (const clip of librivoxSentences()) {
      const c = await WyomingClient.connect(port);
      c.send('transcribe', { language: 'en' });
      sendRecording(c, pcmOf(clip.wav));
      const transcript = await c.until('transcript', 30_000);
      await c.until('transcript-stop', 5000);
      await c.close();
      const types = c.events.map((e) => e.type);
      expect(types[0]).to.equal('transcript-start');
      expect(types.slice(-2)).to.deep.equal(['transcript', 'transcript-stop']);
      expect(transcript.data).to.include({ language: 'en' });
      const text = transcript.data.text as string;
      const chunks = c
        .of('transcript-chunk')
        .map((e) => e.data.text as string)
        .join('');
      // Chunks are appended by clients: what they add up to is the transcript, or a start of it.
      expect(text.startsWith(chunks) || wordErrorRate(text, chunks) < 0.5, `${chunks} / ${text}`).to.equal(true);
      const n = clip.words.split(' ').length;
      errors += wordErrorRate(clip.words, text) * n;
      words += n;
    }
    const wer = errors / words;
    console.log(`      pocketsphinx over Wyoming: WER ${(wer * 100).toFixed(1)} % on ${words} words`);
    expect(wer).to.be.below(0.4);
  });

  it('converts what the client sends: 44.1 kHz stereo 24-bit, the format in the chunks only (no audio-start)', async () => {
    const clip = librivoxSentences().find((s) => s.id.endsWith('0920'))!;
    const stereo24 = await resample(clip.wav, ['-ar', '44100', '-ac', '2', '-f', 's24le']);
    const c = await WyomingClient.connect(port);
    c.send('transcribe');
    const format = { rate: 44100, width: 3, channels: 2 };
    // Chunks cut in the middle of a frame: the server keeps the half frame for the next chunk.
    for (let i = 0; i < stereo24.length; i += 10_001) c.send('audio-chunk', format, stereo24.subarray(i, i + 10_001));
    c.send('audio-stop');
    const transcript = await c.until('transcript', 30_000);
    await c.close();
    const wer = wordErrorRate(clip.words, transcript.data.text as string);
    console.log(`      44.1 kHz stereo s24: WER ${(wer * 100).toFixed(1)} %: ${transcript.data.text}`);
    expect(wer).to.be.below(0.5);
  });

  it('a client vanishing mid-audio or mid-speech frees its work and leaves other clients alone', async () => {
    const speech = pcmOf(librivoxSentences()[2]!.wav);
    const bystander = await WyomingClient.connect(port);
    for (let round = 0; round < 3; round++) {
      const c = await WyomingClient.connect(port);
      c.send('transcribe');
      sendRecording(c, speech.subarray(0, speech.length / 2), undefined, 1024, false);
      await new Promise((r) => setTimeout(r, 50 + round * 50));
      c.destroy();
    }
    const talker = await WyomingClient.connect(port);
    talker.send('synthesize', { text: 'A long answer. '.repeat(40) });
    await talker.until('audio-chunk');
    talker.destroy();

    const wyoming = t.server.wyoming!.server;
    const deadline = performance.now() + 5000;
    while (wyoming.activeConnections > 1 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(wyoming.activeConnections).to.equal(1);
    const recognizer = t.server.services.get(REALTIME_TOKENS.SpeechRecognizer) as PocketsphinxSpeechRecognizer;
    await waitUntil(() => recognizer.load.busy === 0 && recognizer.load.waiting === 0, 'the decoders to be handed back');
    // The bystander's connection still answers.
    bystander.send('ping', { text: 'still there' });
    expect((await bystander.until('pong')).data).to.deep.equal({ text: 'still there' });
    await bystander.close();
  });

  describe('bad input closes that connection only, with an error event', () => {
    async function refused(send: (c: WyomingClient) => void): Promise<Record<string, unknown>> {
      const bystander = await WyomingClient.connect(port);
      const c = await WyomingClient.connect(port);
      send(c);
      const error = await c.until('error', 10_000);
      await c.closed;
      bystander.send('describe');
      await bystander.until('info');
      await bystander.close();
      return error.data;
    }

    it('a line that is not JSON', async () => {
      expect(await refused((c) => c.sendRaw('this is not json\n'))).to.include({ code: 'invalid_json' });
    });

    it('a declared 2 GB payload, refused at once without being sent', async () => {
      const started = performance.now();
      const error = await refused((c) =>
        c.sendRaw(
          JSON.stringify({ type: 'audio-chunk', data: { rate: 16000, width: 2, channels: 1 }, payload_length: 2 * 1024 ** 3 }) + '\n',
        ),
      );
      expect(error).to.include({ code: 'payload_too_large' });
      expect(performance.now() - started).to.be.below(3000);
    });

    it('a header line past 64 KiB without a newline', async () => {
      expect(await refused((c) => c.sendRaw(`{"type": "synthesize", "data": {"text": "${'a'.repeat(70_000)}`))).to.include({
        code: 'payload_too_large',
      });
    });

    it('an unknown event type', async () => {
      const error = await refused((c) => c.send('detect', { names: ['ok_nabu'] }));
      expect(error).to.include({ code: 'invalid_request_error' });
      expect(error.text).to.match(/Unknown event type 'detect'/);
    });

    it('a chunk outside a stream, and text past the 5000-character limit', async () => {
      expect(await refused((c) => c.send('synthesize-chunk', { text: 'hello' }))).to.include({ code: 'invalid_request_error' });
      expect(await refused((c) => c.send('synthesize', { text: 'x'.repeat(5001) }, null, { dataBlock: true }))).to.include({
        code: 'input_too_long',
      });
    });

    it('an implausible audio format', async () => {
      expect(await refused((c) => c.send('audio-start', { rate: 1, width: 2, channels: 1 }))).to.include({ code: 'invalid_parameter' });
    });
  });
});

/** A 16 kHz WAV as other raw PCM (ffmpeg). */
async function resample(wav: Buffer, args: string[]): Promise<Buffer> {
  const { spawn } = await import('node:child_process');
  const ffmpeg = (await import('@ffmpeg-installer/ffmpeg')).default;
  return new Promise((resolve, reject) => {
    const p = spawn(ffmpeg.path, ['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0', ...args, 'pipe:1']);
    const out: Buffer[] = [];
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited ${code}`))));
    p.stdin.end(wav);
  });
}
