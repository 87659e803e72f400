import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REALTIME_TOKENS, type RecognitionOptions, type SpeechRecognizer } from '@svc/core';
import { TransformersSpeechRecognizer } from '@svc/adapters-speech-recognition';
import { writeTestAsrFolder } from '@svc/adapters-testing';
import { openSession, type RealtimeClient } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { startTestServer } from '../helpers/test-server.js';
import { getJson } from '../helpers/http.js';

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';
const clipWav = () => readFileSync(CLIP);
const silence = (ms: number) => Buffer.alloc(Math.round((16000 * ms) / 1000) * 2);

function speak(client: RealtimeClient, pcm: Buffer): void {
  for (let i = 0; i < pcm.length; i += 3200)
    client.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(i, i + 3200).toString('base64') });
}

async function post(baseUrl: string, key: string, fields: Record<string, string>): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([clipWav()], { type: 'audio/wav' }), 'clip.wav');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return fetch(`${baseUrl}/v1/audio/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
}

// The test Whisper model (see test-asr-folder.ts) says "hello world caf dear" after the four-token
// multilingual prompt, and detects German when no language is given.
describe('Whisper / Moonshine as the server recognizer (SVC_ASR_ENGINE=whisper:<model>, test-built models)', function () {
  this.timeout(120_000);
  let modelsDir: string;
  before(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'svc-asr-models-'));
    await writeTestAsrFolder(join(modelsDir, 'whisper-test'), { family: 'whisper' });
    await writeTestAsrFolder(join(modelsDir, 'moonshine-test'), { family: 'moonshine' });
  });
  after(() => rmSync(modelsDir, { recursive: true, force: true }));

  it('transcriptions answer from the Whisper model, with the language hint or detected, and the prompt as earlier context; /readyz names it, /metrics has its size', async () => {
    const t = await startTestServer({ env: { SVC_MODELS_DIR: modelsDir, SVC_ASR_ENGINE: 'whisper:whisper-test' } });
    try {
      const started = performance.now();
      const en = (await (
        await post(t.baseUrl, t.apiKey, { model: 'whisper-1', language: 'en', response_format: 'verbose_json' })
      ).json()) as Record<string, any>;
      console.log(
        `      whisper test model via the endpoint: ${(performance.now() - started).toFixed(0)} ms for a ${en.duration.toFixed(1)} s clip`,
      );
      expect(en).to.deep.include({ task: 'transcribe', language: 'english', text: 'hello world caf dear' });
      const detected = (await (await post(t.baseUrl, t.apiKey, { response_format: 'verbose_json' })).json()) as Record<string, any>;
      expect(detected.language).to.equal('german');
      // 'prompt' reaches Whisper as <|startofprev|> " hello": two more forced tokens move " dear" (position 6) earlier.
      const prompted = (await (await post(t.baseUrl, t.apiKey, { language: 'en', prompt: 'hello' })).json()) as { text: string };
      expect(prompted.text).to.equal('hello dear');
      const metrics = await (await fetch(`${t.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${t.apiKey}` } })).text();
      expect(metrics).to.match(/svc_neural_model_bytes\{engine="whisper",model="whisper-test"\} [1-9]\d+/);
      const ready = await getJson(`${t.baseUrl}/readyz`, null);
      expect(JSON.stringify(ready.body)).to.include('whisper whisper-test');
    } finally {
      await t.close();
    }
  });

  it('moonshine:<model> selects the Moonshine folder; a wrong family, a missing model or upstream without a URL stop the start with the reason', async () => {
    const t = await startTestServer({ env: { SVC_MODELS_DIR: modelsDir, SVC_ASR_ENGINE: 'moonshine:moonshine-test' } });
    try {
      const res = (await (await post(t.baseUrl, t.apiKey, {})).json()) as { text: string };
      expect(res.text).to.equal('hello worldé');
    } finally {
      await t.close();
    }
    await startTestServer({ env: { SVC_MODELS_DIR: modelsDir, SVC_ASR_ENGINE: 'whisper:moonshine-test' } }).then(
      (s) => s.close().then(() => expect.fail('started')),
      (e: Error) => expect(e.message).to.match(/moonshine-test is a moonshine model, not whisper/),
    );
    await startTestServer({ env: { SVC_MODELS_DIR: modelsDir, SVC_ASR_ENGINE: 'whisper:nope' } }).then(
      (s) => s.close().then(() => expect.fail('started')),
      (e: Error) => expect(e.message).to.include(join(modelsDir, 'nope')),
    );
    await startTestServer({ env: { SVC_ASR_ENGINE: 'upstream' } }).then(
      (s) => s.close().then(() => expect.fail('started')),
      (e: Error) => expect(e.message).to.match(/SVC_UPSTREAM_ASR_URL/),
    );
    await startTestServer({ env: { SVC_ASR_ENGINE: 'whisper' } }).then(
      (s) => s.close().then(() => expect.fail('started')),
      (e: Error) => expect(e.message).to.match(/Invalid configuration SVC_ASR_ENGINE/),
    );
  });

  describe('as the realtime recognizer', () => {
    let s: RealtimeTestServer;
    const languages: (string | null)[] = [];
    before(async () => {
      // The real Whisper recognizer behind a stand-in that notes each turn's language hint.
      const real = await TransformersSpeechRecognizer.create({ dir: join(modelsDir, 'whisper-test') });
      const noting: SpeechRecognizer = {
        transcribe: (audio, options, signal) => (languages.push(options.language), real.transcribe(audio, options, signal)),
        openStream: (options: RecognitionOptions & { sampleRate: number }, signal) => (
          languages.push(options.language),
          real.openStream(options, signal)
        ),
      };
      s = await startRealtimeServer({
        env: { SVC_MODELS_DIR: modelsDir },
        overrides: new Map([[REALTIME_TOKENS.SpeechRecognizer, noting]]),
      });
    });
    after(async () => s?.close());

    it("a server-VAD turn is buffered and transcribed at its end with the session's language hint", async () => {
      const { client } = await openSession(s.wsUrl, s.apiKey, {
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 16000 },
            turn_detection: { type: 'server_vad', silence_duration_ms: 500, create_response: false },
            transcription: { model: 'svc-stt-3.1', language: 'de' },
          },
        },
      });
      speak(client, Buffer.concat([silence(500), clipWav().subarray(44), silence(1200)]));
      const done = (await client.until('conversation.item.input_audio_transcription.completed', 60_000)).event;
      expect(done.transcript).to.equal('hello world caf dear');
      expect(languages).to.deep.equal(['de']);
      await client.close();
    });
  });
});
