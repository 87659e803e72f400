import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Principal } from '@svc/core';
import { UpstreamSpeechRecognizer } from '../../src/asr/upstream/upstream-speech-recognizer.js';
import { compressionRatio } from '../../src/asr/compression-ratio.js';

const principal = { keyId: 'k', tenantId: 't' } as unknown as Principal;

interface Seen {
  auth: string | undefined;
  fields: Record<string, string[]>;
  file: { name: string; type: string; bytes: Uint8Array } | null;
}

/** A fake OpenAI-compatible transcription server: parses the multipart upload like a real one. */
function fakeServer(answer: (seen: Seen, res: ServerResponse) => void): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = await new Request('http://x/', {
      method: 'POST',
      headers: req.headers as Record<string, string>,
      body: Buffer.concat(chunks),
    }).formData();
    const fields: Record<string, string[]> = {};
    let file: Seen['file'] = null;
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') (fields[key] ??= []).push(value);
      else file = { name: value.name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) };
    }
    const s = { auth: req.headers.authorization, fields, file };
    seen.push(s);
    answer(s, res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen, server })),
  );
}

const tone = (seconds: number, rate: number) =>
  Int16Array.from({ length: Math.round(seconds * rate) }, (_, i) => Math.round(5000 * Math.sin(i / 5)));

describe('upstream OpenAI-compatible transcription server as the recognizer (local fake servers)', function () {
  this.timeout(20000);
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));

  async function start(answer: (seen: Seen, res: ServerResponse) => void) {
    const fake = await fakeServer(answer);
    servers.push(fake.server);
    return fake;
  }

  it('uploads a 16 kHz WAV with model, language, prompt, verbose_json and word granularity; returns text, segments and words', async () => {
    const fake = await start((_s, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          text: ' Hello there. ',
          language: 'english',
          duration: 1.5,
          segments: [{ id: 0, start: 0, end: 1.5, text: ' Hello there.' }],
          words: [
            { word: 'Hello', start: 0.1, end: 0.5 },
            { word: 'there', start: 0.6, end: 1.0 },
          ],
        }),
      );
    });
    const r = new UpstreamSpeechRecognizer({ baseUrl: fake.url + '/', apiKey: 'sk-up', model: 'whisper-large', timeoutMs: 5000 });
    const result = await r.transcribeDetailed(
      { samples: tone(1.5, 24000), sampleRate: 24000 },
      { language: 'en-GB', principal, prompt: 'Marianne, Elinor' },
    );
    // No figures from this server: Whisper's compression ratio is computed from the text it sent.
    expect(result).to.deep.equal({
      text: 'Hello there.',
      language: 'english',
      duration: 1.5,
      segments: [{ start: 0, end: 1.5, text: 'Hello there.', compressionRatio: compressionRatio('Hello there.') }],
      words: [
        { word: 'Hello', start: 0.1, end: 0.5 },
        { word: 'there', start: 0.6, end: 1.0 },
      ],
    });
    const seen = fake.seen[0]!;
    expect(seen.auth).to.equal('Bearer sk-up');
    expect(seen.fields).to.deep.equal({
      model: ['whisper-large'],
      response_format: ['verbose_json'],
      'timestamp_granularities[]': ['word', 'segment'],
      language: ['en'],
      prompt: ['Marianne, Elinor'],
    });
    expect(seen.file!.name).to.equal('audio.wav');
    expect(seen.file!.type).to.equal('audio/wav');
    const wav = Buffer.from(seen.file!.bytes);
    expect(wav.toString('ascii', 0, 4)).to.equal('RIFF');
    expect(wav.readUInt32LE(24)).to.equal(16000);
    expect(Math.abs((wav.length - 44) / 2 - 24000)).to.be.below(40);
  });

  it('passes through the segment figures the server sent (avg_logprob, compression_ratio, no_speech_prob, temperature, seek, tokens); wrong types are dropped', async () => {
    const fake = await start((_s, res) =>
      res.end(
        JSON.stringify({
          text: 'Hi.',
          segments: [
            {
              id: 0,
              seek: 0,
              start: 0,
              end: 1,
              text: 'Hi.',
              tokens: [50364, 2421, 13],
              temperature: 0.2,
              avg_logprob: -0.31,
              compression_ratio: 0.85,
              no_speech_prob: 0.02,
            },
            { id: 1, seek: 'x', start: 1, end: 2, text: 'Yes.', tokens: ['a'], avg_logprob: null, no_speech_prob: 'low' },
          ],
        }),
      ),
    );
    const r = new UpstreamSpeechRecognizer({ baseUrl: fake.url, model: 'm', timeoutMs: 5000 });
    const { segments } = await r.transcribeDetailed({ samples: tone(2, 16000), sampleRate: 16000 }, { language: null, principal });
    expect(segments).to.deep.equal([
      {
        start: 0,
        end: 1,
        text: 'Hi.',
        avgLogprob: -0.31,
        compressionRatio: 0.85,
        noSpeechProb: 0.02,
        temperature: 0.2,
        seek: 0,
        tokens: [50364, 2421, 13],
      },
      { start: 1, end: 2, text: 'Yes.', compressionRatio: compressionRatio('Yes.') },
    ]);
  });

  it('a streamed turn is buffered and sent once at finish(); a plain {text} answer (json servers) works too', async () => {
    const fake = await start((_s, res) => res.end(JSON.stringify({ text: 'plain answer' })));
    const r = new UpstreamSpeechRecognizer({ baseUrl: fake.url, model: 'm', timeoutMs: 5000 });
    const stream = r.openStream({ language: null, principal, sampleRate: 16000 }, new AbortController().signal);
    for (let i = 0; i < 10; i++) stream.write(tone(0.1, 16000));
    expect(fake.seen).to.have.length(0);
    expect(await stream.finish()).to.deep.equal({ text: 'plain answer' });
    expect(fake.seen).to.have.length(1);
    expect(fake.seen[0]!.auth).to.equal(undefined);
    expect(fake.seen[0]!.fields.language).to.equal(undefined);
    expect(fake.seen[0]!.file!.bytes.length).to.equal(44 + 16000 * 2);
  });

  it("an error status carries the server's message; non-JSON or text-less answers are errors", async () => {
    let mode = 0;
    const fake = await start((_s, res) => {
      mode++;
      if (mode === 1) {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { message: 'CUDA out of memory' } }));
      } else if (mode === 2) res.end('<html>proxy</html>');
      else res.end(JSON.stringify({ nope: 1 }));
    });
    const r = new UpstreamSpeechRecognizer({ baseUrl: fake.url, model: 'm', timeoutMs: 5000 });
    const audio = { samples: tone(0.5, 16000), sampleRate: 16000 };
    await r.transcribe(audio, { language: null, principal }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.match(/answered 500: .*CUDA out of memory/),
    );
    await r.transcribe(audio, { language: null, principal }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.match(/not JSON/),
    );
    await r.transcribe(audio, { language: null, principal }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.match(/without a text field/),
    );
  });

  it('a server that never answers times out; a slow one within the limit succeeds; a refused connection fails fast', async () => {
    const hang = await start(() => undefined);
    const r = new UpstreamSpeechRecognizer({ baseUrl: hang.url, model: 'm', timeoutMs: 400 });
    const started = performance.now();
    await r.transcribe({ samples: tone(0.5, 16000), sampleRate: 16000 }, { language: null, principal }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.equal('upstream transcription server did not answer within 400 ms'),
    );
    expect(performance.now() - started).to.be.within(350, 3000);

    const slow = await start((_s, res) => {
      res.write('{"text": "sl');
      setTimeout(() => res.end('ow"}'), 300);
    });
    const patient = new UpstreamSpeechRecognizer({ baseUrl: slow.url, model: 'm', timeoutMs: 3000 });
    expect((await patient.transcribe({ samples: tone(0.5, 16000), sampleRate: 16000 }, { language: null, principal })).text).to.equal(
      'slow',
    );

    const closed = await start(() => undefined);
    const port = new URL(closed.url).port;
    closed.server.close();
    const refused = new UpstreamSpeechRecognizer({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 3000 });
    await refused.transcribe({ samples: tone(0.2, 16000), sampleRate: 16000 }, { language: null, principal }).then(
      () => expect.fail(),
      (e: Error) => expect(e.message).to.match(/^upstream transcription server failed: /),
    );
  });

  it("the caller's cancel aborts the upload and rejects with the abort reason", async () => {
    const hang = await start(() => undefined);
    const r = new UpstreamSpeechRecognizer({ baseUrl: hang.url, model: 'm', timeoutMs: 10000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await r.transcribe({ samples: tone(0.5, 16000), sampleRate: 16000 }, { language: null, principal }, controller.signal).then(
      () => expect.fail(),
      (e: Error) => expect(e.name).to.equal('AbortError'),
    );
  });
});
