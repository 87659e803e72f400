import { expect } from 'chai';
import { silentLogger, SPEECH_TOKENS, type Logger, type ReplySpeaker, type ReplySpeechRequest } from '@svc/core';
import { FliteSpeechSynthesizer } from '@svc/adapters-speech-synthesis';
import { WarmingReplySpeaker, warmReplySpeech } from '../../src/runtime/reply-speech-warm-up.js';
import { librivoxSentences } from '../helpers/librivox.js';
import { openSession, sleep } from '../helpers/realtime-client.js';
import { postJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** A speaker that records what it was asked and how many were speaking at once. */
class RecordingSpeaker implements ReplySpeaker {
  readonly requests: ReplySpeechRequest[] = [];
  speaking = 0;
  mostAtOnce = 0;
  finished = 0;

  async *speak(request: ReplySpeechRequest): AsyncIterable<Int16Array> {
    this.requests.push(request);
    this.mostAtOnce = Math.max(this.mostAtOnce, ++this.speaking);
    await new Promise((resolve) => setTimeout(resolve, 20));
    yield new Int16Array(240);
    this.speaking--;
    this.finished++;
  }
}

describe('reply speech warm-up (SVC_REALTIME_WARM_UP)', function () {
  this.timeout(60_000);

  it('speaks one reply sentence per synthesis thread, all at once, in the default voice at the default output rate', async () => {
    const speaker = new RecordingSpeaker();
    await warmReplySpeech(speaker, 3);
    expect(speaker.requests).to.have.length(3);
    expect(speaker.mostAtOnce, 'sentences speaking at once').to.equal(3);
    expect(speaker.finished, 'sentences spoken to the end before it resolves').to.equal(3);
    for (const r of speaker.requests) {
      expect(r.voice).to.equal('default');
      expect(r.sampleRate).to.equal(24_000);
      expect(r.text).to.match(/\w+/);
    }
  });

  it('WarmingReplySpeaker warms once, on the first hint a reply is near or at start, and speaks through the speaker it wraps', async () => {
    const inner = new RecordingSpeaker();
    const speaker = new WarmingReplySpeaker(inner, 2, silentLogger);
    speaker.warmUp();
    speaker.warmUp();
    await speaker.warm();
    expect(inner.requests, 'one sentence per thread, once').to.have.length(2);
    const principal = { apiKeyId: 'k', name: 'k' };
    for await (const chunk of speaker.speak(
      { text: 'Hi.', voice: 'alloy', principal, sampleRate: 16000, speed: 1 },
      new AbortController().signal,
    ))
      expect(chunk.length).to.equal(240);
    expect(inner.requests.at(-1)!.voice).to.equal('alloy');
  });

  it('a warm-up that fails is logged, not thrown at the session that hinted it, and replies still speak', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (_fields: unknown, message?: string) => void warnings.push(String(message)) } as Logger;
    let calls = 0;
    const failingOnce: ReplySpeaker = {
      async *speak() {
        if (++calls <= 2) throw new Error('engine not ready');
        yield new Int16Array(240);
      },
    };
    const speaker = new WarmingReplySpeaker(failingOnce, 2, logger);
    expect(() => speaker.warmUp()).not.to.throw();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(warnings).to.deep.equal(['reply speech: warming up failed']);
    const principal = { apiKeyId: 'k', name: 'k' };
    let samples = 0;
    for await (const chunk of speaker.speak(
      { text: 'Hi.', voice: 'default', principal, sampleRate: 24000, speed: 1 },
      new AbortController().signal,
    ))
      samples += chunk.length;
    expect(samples).to.equal(240);
  });

  describe('the real server (Flite, 2 threads)', () => {
    let t: TestServer | undefined;
    afterEach(async () => {
      await t?.close();
      t = undefined;
    });
    const env = { SVC_FLITE_WORKERS: '2', SVC_ASR_ENGINE: 'off', SVC_VAD_ENGINE: 'off', SVC_LIVE_AVATAR_ENABLED: 'false' };
    const flite = (server: TestServer) =>
      server.server.services
        .get(SPEECH_TOKENS.SpeechSynthesizers)
        .find((e): e is FliteSpeechSynthesizer => e instanceof FliteSpeechSynthesizer)!;

    it('blocking: each thread has spoken once when the server listens, so the first replies run in used instances', async () => {
      // The speech engines' threads are up before the warm-up, as by default (the test servers start
      // them lazily: the first thread up could take both sentences while the second still starts).
      t = await startTestServer({ env: { ...env, SVC_REALTIME_WARM_UP: 'blocking', SVC_SPEECH_WARM_UP: 'blocking' } });
      const engine = flite(t);
      expect(engine.stats.runs, 'flite runs before any request').to.equal(2);
      // Two requests at once take both threads: each runs where a warm-up sentence ran before it.
      const before = engine.stats.reusedInstances;
      const answers = await Promise.all(
        ['Good morning.', 'Good evening.'].map((input) =>
          postJson(`${t!.baseUrl}/v1/audio/speech`, { input, response_format: 'pcm' }, t!.apiKey),
        ),
      );
      for (const res of answers) {
        expect(res.status).to.equal(200);
        await res.arrayBuffer();
      }
      expect(engine.stats.reusedInstances - before, 'requests that ran in an instance a warm-up ran in').to.equal(2);
    });

    it('lazy (the default): nothing is spoken at start; a sentence per thread once the first session that speaks its replies hears speech', async () => {
      // The detector runs; no recognizer, so the turn gets no reply: every flite run is the warm-up's.
      t = await startTestServer({ env: { ...env, SVC_VAD_ENGINE: 'silero' } });
      const engine = flite(t);
      expect(engine.stats.runs).to.equal(0);
      const { client } = await openSession(t.wsUrl, t.apiKey, {
        output_modalities: ['audio'],
        audio: { input: { format: { type: 'audio/pcm', rate: 16000 }, turn_detection: { type: 'server_vad' } } },
      });
      try {
        await sleep(500);
        expect(engine.stats.runs, 'a session that has not heard speech yet').to.equal(0);
        const speech = Buffer.from(librivoxSentences()[0]!.samples.buffer).subarray(0, 16000 * 2 * 2);
        for (let i = 0; i < speech.length; i += 3200)
          client.send({ type: 'input_audio_buffer.append', audio: speech.subarray(i, i + 3200).toString('base64') });
        await client.until('input_audio_buffer.speech_started', 15_000);
        for (let waited = 0; engine.stats.runs < 2 && waited < 15_000; waited += 100) await sleep(100);
        expect(engine.stats.runs, 'flite runs once speech started').to.equal(2);
      } finally {
        client.close();
      }
    });
  });
});
