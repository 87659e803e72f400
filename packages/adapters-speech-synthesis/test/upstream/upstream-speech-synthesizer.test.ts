import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NEUTRAL_PROSODY } from '@svc/core';
import { UpstreamSpeechSynthesizer } from '../../src/upstream/upstream-speech-synthesizer.js';
import { StreamingResampler } from '@svc/adapters-runtime';
import { floatToInt16 } from '@svc/adapters-runtime';

/** A local OpenAI-compatible speech server: streams 24 kHz pcm in chunks; behaviour chosen by voice. */
/** What the fake server is doing: a test reads it to tell when audio reached the client. */
const upstreamState = { finished: false, sentChunks: 0 };

function fakeUpstream(seen: { auth?: string; body?: any }[]): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const c of req) raw += c;
    const body = JSON.parse(raw);
    seen.push({ auth: req.headers.authorization, body });
    if (req.url !== '/v1/audio/speech') return void res.writeHead(404).end();
    if (body.voice === 'missing')
      return void res.writeHead(400, { 'Content-Type': 'application/json' }).end('{"error":{"message":"unknown voice"}}');
    res.writeHead(200, { 'Content-Type': 'audio/pcm' });
    if (body.voice === 'trickle') {
      // 1 s of a 300 Hz tone in odd-sized pieces (bytes split mid-sample), 40 ms apart
      const all = Buffer.alloc(24000 * 2);
      for (let i = 0; i < 24000; i++) all.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 24000)), i * 2);
      upstreamState.finished = false;
      upstreamState.sentChunks = 0;
      for (let at = 0; at < all.length; at += 4801) {
        res.write(all.subarray(at, Math.min(all.length, at + 4801)));
        upstreamState.sentChunks++;
        await new Promise((r) => setTimeout(r, 40));
      }
      upstreamState.finished = true;
      return void res.end();
    }
    const chunk = Buffer.alloc(2400 * 2);
    for (let i = 0; i < 2400; i++) chunk.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 24000)), i * 2);
    for (let n = 0; n < 10; n++) {
      if (body.voice === 'breaks' && n === 3) return void res.destroy();
      if (body.voice === 'slow' && n === 2) return; // stops sending, never ends
      res.write(chunk);
      await new Promise((r) => setTimeout(r, 5));
    }
    res.end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })),
  );
}

describe('upstream OpenAI-compatible speech server as an engine (local fake server)', function () {
  this.timeout(30000);
  const seen: { auth?: string; body?: any }[] = [];
  let server: Server;
  let synth: UpstreamSpeechSynthesizer;

  before(async () => {
    const up = await fakeUpstream(seen);
    server = up.server;
    synth = await UpstreamSpeechSynthesizer.create({
      baseUrl: up.url,
      apiKey: 'sk-upstream',
      model: 'kokoro',
      timeoutMs: 1500,
      voices: ['af_heart', 'breaks', 'slow', 'missing', 'trickle'].map((voice) => ({ voice, language: 'en-us' })),
    });
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const voice = (name: string) => synth.voices().find((v) => v.engineVoice === name)!;

  it('lists its voices as upstream-<voice> presets', () => {
    expect(synth.voices().map((v) => [v.name, v.engine, v.language])[0]).to.deep.equal(['upstream-af_heart', 'upstream', 'en-us']);
  });

  it('reads the streamed pcm, sends model/voice/speed/key, resamples to the asked rate', async () => {
    const result = await synth.synthesize({
      text: 'Hello there world',
      voice: voice('af_heart'),
      prosody: { ...NEUTRAL_PROSODY, rate: 1.5 },
      sampleRate: 16000,
      wordTimings: true,
    });
    expect(seen.at(-1)!.auth).to.equal('Bearer sk-upstream');
    expect(seen.at(-1)!.body).to.deep.equal({
      model: 'kokoro',
      input: 'Hello there world',
      voice: 'af_heart',
      response_format: 'pcm',
      speed: 1.5,
    });
    expect(result.samples.length).to.be.closeTo(24000 * (16000 / 24000), 50); // 10 chunks of 0.1 s
    expect(result.words.map((w) => w.word)).to.deep.equal(['Hello', 'there', 'world']);
    expect(result.words[2]!.end).to.be.closeTo(1, 0.01);
  });

  it('an error mid-stream, an error status and a stalled server are clear errors, within the timeout', async () => {
    const req = (name: string) =>
      synth.synthesize({ text: 'Hi', voice: voice(name), prosody: { ...NEUTRAL_PROSODY }, sampleRate: 24000, wordTimings: false });
    await req('breaks').then(
      () => expect.fail('should fail'),
      (e: Error) => expect(e.message).to.match(/^upstream speech server failed/),
    );
    await req('missing').then(
      () => expect.fail('should fail'),
      (e: Error) => expect(e.message).to.equal('upstream speech server answered 400: {"error":{"message":"unknown voice"}}'),
    );
    const started = Date.now();
    await req('slow').then(
      () => expect.fail('should fail'),
      (e: Error) => expect(e.message).to.equal('upstream speech server did not finish within 1500 ms'),
    );
    expect(Date.now() - started).to.be.within(1400, 4000);
  });

  it('a caller abort stops the request with the caller reason', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('client went away')), 50);
    await synth
      .synthesize(
        { text: 'Hi', voice: voice('slow'), prosody: { ...NEUTRAL_PROSODY }, sampleRate: 24000, wordTimings: false },
        controller.signal,
      )
      .then(
        () => expect.fail('should fail'),
        (e: Error) => expect(e.message).to.equal('client went away'),
      );
  });

  it('streams at the byte level: audio reaches the caller while the upstream is still sending', async () => {
    const stream = synth.synthesizeStream({
      text: 'Hi',
      voice: voice('trickle'),
      prosody: { ...NEUTRAL_PROSODY },
      sampleRate: 24000,
      wordTimings: true,
    });
    const arrivals: { samples: number; upstreamFinished: boolean; sentChunks: number }[] = [];
    const parts: Int16Array[] = [];
    for await (const chunk of stream.chunks) {
      arrivals.push({ samples: chunk.length, upstreamFinished: upstreamState.finished, sentChunks: upstreamState.sentChunks });
      parts.push(chunk);
    }
    expect(arrivals.length).to.be.greaterThan(5);
    expect(arrivals[0]!.upstreamFinished).to.equal(false);
    expect(arrivals[0]!.sentChunks).to.be.lessThan(3);
    // odd-sized pieces: samples split across chunks are joined, nothing lost or shifted
    const all = Int16Array.from(parts.flatMap((p) => Array.from(p)));
    expect(all.length).to.equal(24000);
    for (let i = 0; i < 24000; i += 997) expect(all[i]).to.equal(Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 24000)));
    expect(stream.words()).to.deep.equal([{ word: 'Hi', start: 0, end: 1 }]);
  });

  it('resampling keeps its state across chunks: the streamed result equals resampling the whole', async () => {
    const streamed = await synth.synthesize({
      text: 'Hi',
      voice: voice('trickle'),
      prosody: { ...NEUTRAL_PROSODY },
      sampleRate: 16000,
      wordTimings: false,
    });
    const whole = new Int16Array(24000);
    for (let i = 0; i < 24000; i++) whole[i] = Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 24000));
    // The same streaming resampler in one piece (the engine's one resampler: runtime/streaming-resampler.ts).
    const oneShot = new StreamingResampler(24000, 16000);
    const reference = floatToInt16(Float32Array.from([...oneShot.process(whole), ...oneShot.end()]));
    expect(streamed.samples.length).to.equal(reference.length);
    let maxDiff = 0;
    for (let i = 0; i < reference.length; i++) maxDiff = Math.max(maxDiff, Math.abs(streamed.samples[i]! - reference[i]!));
    expect(maxDiff).to.be.lessThan(3);
  });

  it('an error after some audio: the audio already received is delivered, then the error', async () => {
    const stream = synth.synthesizeStream({
      text: 'Hi',
      voice: voice('breaks'),
      prosody: { ...NEUTRAL_PROSODY },
      sampleRate: 24000,
      wordTimings: false,
    });
    let samples = 0;
    const error = await (async () => {
      for await (const chunk of stream.chunks) samples += chunk.length;
    })().then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).to.match(/^upstream speech server failed/);
    expect(samples).to.equal(3 * 2400);
  });
});
