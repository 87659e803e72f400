// @test-tier light: streams audio at real-time pace
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { LIBRIVOX_DIR as LIBRIVOX, librivoxSentences } from '../helpers/librivox.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { wavFile } from '../helpers/wav.js';
import { wordErrorRate } from '../helpers/wer.js';

const librivox = librivoxSentences;

/** A multipart POST as curl -F sends it. */
async function transcribe(
  t: TestServer,
  parts: Record<string, string | string[] | Blob>,
  key: string | null = t.apiKey,
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (Array.isArray(value)) for (const v of value) form.append(name, v);
    else if (value instanceof Blob) form.append(name, value, 'audio.wav');
    else form.append(name, value);
  }
  return fetch(`${t.baseUrl}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: key ? { Authorization: `Bearer ${key}` } : {},
    body: form,
  });
}

const wavBlob = (wav: Buffer) => new Blob([wav], { type: 'audio/wav' });

async function errorOf(res: Response): Promise<{ status: number; type: string; param: string | null }> {
  const body = (await res.json()) as { error: { type: string; param: string | null } };
  return { status: res.status, type: body.error.type, param: body.error.param };
}

describe('POST /v1/audio/transcriptions with the embedded pocketsphinx recognizer (real server, real speech)', function () {
  this.timeout(120_000);
  let t: TestServer;
  before(async function () {
    requireRecognizer();
    if (!existsSync(join(LIBRIVOX, 'transcription'))) throw new Error(`${LIBRIVOX} is missing: run npm run setup`);
    t = await startTestServer({ env: { SVC_TRANSCRIPTION_MAX_SECONDS: '20' } });
  });
  after(async () => t?.close());

  it('transcribes the five LibriVox sentences (json): word error rate and latency', async () => {
    const clips = librivox();
    let errors = 0;
    let words = 0;
    const latencies: number[] = [];
    for (const clip of clips) {
      const started = performance.now();
      const res = await transcribe(t, { file: wavBlob(clip.wav), model: 'whisper-1' });
      latencies.push(performance.now() - started);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const body = (await res.json()) as { text: string };
      expect(Object.keys(body)).to.deep.equal(['text', 'usage']);
      const n = clip.words.split(' ').length;
      errors += wordErrorRate(clip.words, body.text) * n;
      words += n;
    }
    const wer = errors / words;
    console.log(
      `      pocketsphinx via /v1/audio/transcriptions: WER ${(wer * 100).toFixed(1)} % on ${words} words; latency ms ${latencies.map((l) => l.toFixed(0)).join(', ')}`,
    );
    // pocketsphinx's known level on these clips is ~27 %: far above means the audio did not arrive right.
    expect(wer).to.be.below(0.4);
  });

  it('verbose_json (task, language, duration, segments), text, srt and vtt', async () => {
    const clip = librivox().find((c) => c.id.endsWith('0880'))!;
    const verbose = (await (
      await transcribe(t, { file: wavBlob(clip.wav), response_format: 'verbose_json', language: 'en' })
    ).json()) as Record<string, any>;
    expect(verbose.task).to.equal('transcribe');
    expect(verbose.language).to.equal('english');
    expect(verbose.duration).to.be.closeTo((clip.wav.length - 44) / 32000, 0.05);
    expect(verbose.segments).to.have.length(1);
    expect(verbose.segments[0]).to.include({ id: 0, start: 0, text: verbose.text });
    expect(verbose.words).to.equal(undefined); // not asked for
    expect(wordErrorRate(clip.words, verbose.text)).to.be.below(0.5);

    const text = await transcribe(t, { file: wavBlob(clip.wav), response_format: 'text' });
    expect(text.headers.get('content-type')).to.match(/^text\/plain/);
    expect((await text.text()).trim()).to.equal(verbose.text);
    const srt = await (await transcribe(t, { file: wavBlob(clip.wav), response_format: 'srt' })).text();
    expect(srt).to.match(/^1\n00:00:00,000 --> 00:00:0\d,\d{3}\n.+\n$/);
    const vtt = await (await transcribe(t, { file: wavBlob(clip.wav), response_format: 'vtt' })).text();
    expect(vtt).to.match(/^WEBVTT\n\n00:00:00\.000 --> /);
  });

  it('the official openai SDK: audio.transcriptions.create (json and verbose_json with timestamp_granularities)', async () => {
    const client = new OpenAI({ apiKey: t.apiKey, baseURL: `${t.baseUrl}/v1` });
    const clip = librivox().find((c) => c.id.endsWith('0930'))!;
    const plain = await client.audio.transcriptions.create({ file: await toFile(clip.wav, 'clip.wav'), model: 'whisper-1' });
    expect(wordErrorRate(clip.words, plain.text)).to.be.below(0.5);
    const words = (await (
      await transcribe(t, { file: wavBlob(clip.wav), response_format: 'verbose_json', 'timestamp_granularities[]': ['word'] })
    ).json()) as Record<string, any>;
    expect(words.segments).to.equal(undefined); // only words were asked for
    expect(words.words.length).to.equal(plain.text.split(' ').length);
    const verbose = await client.audio.transcriptions.create({
      file: await toFile(clip.wav, 'clip.wav'),
      model: 'whisper-1',
      language: 'en',
      response_format: 'verbose_json',
      timestamp_granularities: ['segment', 'word'],
    });
    expect(verbose.text).to.equal(plain.text);
    expect(verbose.segments![0]!.end).to.be.greaterThan(1);
    // pocketsphinx's own word segmentation: every word, in order, inside the recording.
    expect(verbose.words!.map((w) => w.word).join(' ')).to.equal(verbose.text);
    expect(verbose.words![0]!.start).to.be.below(verbose.words!.at(-1)!.start);
    expect(verbose.words!.at(-1)!.end).to.be.at.most(verbose.duration + 0.01);
    const text = await client.audio.transcriptions.create({
      file: await toFile(clip.wav, 'clip.wav'),
      model: 'whisper-1',
      response_format: 'text',
    });
    expect(String(text).trim()).to.equal(plain.text);
  });

  it('word timestamps across a long pause inside a sentence: each word where it was said, none past the recording', async () => {
    // 0920 with 2 s of silence at a clause boundary ("... a more amiable woman | he might have been made ..."):
    // the decoder drops most of such a silence, and its word times must still count it.
    const clip = librivox().find((c) => c.id.endsWith('0920'))!;
    const [pauseAt, pause] = [2.49, 2];
    const cut = Math.round(pauseAt * 16000);
    const samples = new Int16Array(clip.samples.length + pause * 16000);
    samples.set(clip.samples.subarray(0, cut));
    samples.set(clip.samples.subarray(cut), cut + pause * 16000);
    const body = (await (
      await transcribe(t, {
        file: wavBlob(wavFile(samples, 16000)),
        response_format: 'verbose_json',
        'timestamp_granularities[]': ['word'],
      })
    ).json()) as { duration: number; text: string; words: Array<{ word: string; start: number; end: number }> };
    expect(body.words.map((w) => w.word).join(' ')).to.equal(body.text);
    const before = body.words.filter((w) => w.start < pauseAt);
    const after = body.words.filter((w) => w.start >= pauseAt);
    expect(before.length).to.be.at.least(4);
    expect(after.length).to.be.at.least(6);
    for (const w of before) expect(w.end, w.word).to.be.at.most(pauseAt + 0.05);
    expect(after[0]!.start).to.be.within(pauseAt + pause - 0.05, pauseAt + pause + 0.3);
    expect(body.words.at(-1)!.end).to.be.at.most(body.duration + 0.01);
  });

  it('authenticates; refuses bad requests in the REST error shape before decoding anything', async () => {
    const clip = librivox()[1]!;
    expect((await transcribe(t, { file: wavBlob(clip.wav) }, null)).status).to.equal(401);
    expect((await transcribe(t, { file: wavBlob(clip.wav) }, 'sk-wrong')).status).to.equal(401);
    expect(await errorOf(await transcribe(t, { model: 'whisper-1' }))).to.deep.equal({
      status: 400,
      type: 'missing_required_parameter',
      param: 'file',
    });
    // The file sent as a text field (curl -F file=clip.wav, without the @): said so, not "missing".
    expect(await errorOf(await transcribe(t, { file: 'clip.wav' }))).to.deep.equal({
      status: 400,
      type: 'invalid_request_error',
      param: 'file',
    });
    expect(await errorOf(await transcribe(t, { file: wavBlob(clip.wav), language: 'english!' }))).to.include({
      status: 400,
      param: 'language',
    });
    expect(await errorOf(await transcribe(t, { file: wavBlob(clip.wav), response_format: 'mp3' }))).to.include({
      status: 400,
      param: 'response_format',
    });
    expect(await errorOf(await transcribe(t, { file: wavBlob(clip.wav), 'timestamp_granularities[]': ['word'] }))).to.include({
      status: 400,
      param: 'timestamp_granularities[]',
    });
    expect(await errorOf(await transcribe(t, { file: wavBlob(clip.wav), chunking_strategy: 'auto' }))).to.include({
      status: 400,
      type: 'unknown_parameter',
    });
    expect(await errorOf(await transcribe(t, { file: wavBlob(Buffer.alloc(0)) }))).to.deep.equal({
      status: 400,
      type: 'media_empty',
      param: 'file',
    });
    expect(
      await errorOf(await transcribe(t, { file: wavBlob(Buffer.from('this is not audio at all, just text '.repeat(50))) })),
    ).to.include({ status: 400, type: 'invalid_audio', param: 'file' });
    const json = await fetch(`${t.baseUrl}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
      body: '{"file":"x"}',
    });
    expect(await errorOf(json)).to.include({ status: 400, type: 'invalid_request_error' });
  });

  it('a language the English-only recognizer cannot hear: 400 naming what to install, not English words that were never said', async () => {
    const clip = librivox()[1]!;
    for (const language of ['fr', 'DE']) {
      const res = await transcribe(t, { file: wavBlob(clip.wav), language });
      expect(res.status).to.equal(400);
      const { error } = (await res.json()) as { error: { type: string; param: string; message: string } };
      expect(error).to.include({ type: 'transcription_language_unsupported', param: 'language' });
      expect(error.message).to.contain(`(pocketsphinx) hears only en, not '${language.toLowerCase()}'`);
      expect(error.message).to.contain('npm run models -- pull whisper-base');
      expect(error.message).to.contain('SVC_ASR_ENGINE=whisper:whisper-base');
    }
    for (const language of ['en', 'EN'])
      expect((await transcribe(t, { file: wavBlob(clip.wav), language })).status, language).to.equal(200);
  });

  it('limits: an upload over 10 MB is refused while it streams in (413), audio over SVC_TRANSCRIPTION_MAX_SECONDS is audio_too_long', async () => {
    const big = Buffer.alloc(11 * 1024 * 1024);
    const started = performance.now();
    const res = await transcribe(t, { file: wavBlob(big) });
    expect(res.status).to.equal(413);
    expect((await errorOf(res)).type).to.match(/too_large/);
    console.log(`      11 MB upload refused in ${(performance.now() - started).toFixed(0)} ms`);
    // 25 s of audio (the limit here is 20 s): five clips back to back.
    const pcm = Buffer.concat(librivox().map((c) => c.wav.subarray(44)));
    const long = wavFile(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2), 16000);
    expect(await errorOf(await transcribe(t, { file: wavBlob(long) }))).to.deep.equal({
      status: 400,
      type: 'audio_too_long',
      param: 'file',
    });
  });
});

describe('POST /v1/audio/transcriptions without a recognizer (SVC_ASR_ENGINE=off)', function () {
  this.timeout(60_000);
  it('answers 503 transcription_unavailable', async () => {
    const t = await startTestServer({ env: { SVC_ASR_ENGINE: 'off' } });
    try {
      const res = await transcribe(t, { file: wavBlob(librivox()[1]!.wav) });
      expect(await errorOf(res)).to.deep.equal({ status: 503, type: 'transcription_unavailable', param: null });
    } finally {
      await t.close();
    }
  });
});
