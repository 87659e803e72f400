// @test-tier light: speaks at real-time pace and mostly waits
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { openSession, type RealtimeClient, type ServerEvent, takeViolations } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { requireRecognizer } from '../helpers/pocketsphinx.js';

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';
const WORDS = 'and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them';

/** 16 kHz mono s16 samples of a WAV file from pocketsphinx-testdata (data chunk after a 44-byte header). */
function clipSamples(): Buffer {
  const wav = readFileSync(CLIP);
  const dataAt = wav.indexOf('data') + 8;
  return wav.subarray(dataAt);
}

const silence = (ms: number) => Buffer.alloc(Math.round((16000 * ms) / 1000) * 2);

/** Streams PCM like a microphone: 100 ms appends. */
function speak(client: RealtimeClient, pcm: Buffer): void {
  for (let i = 0; i < pcm.length; i += 3200)
    client.send({ type: 'input_audio_buffer.append', audio: pcm.subarray(i, i + 3200).toString('base64') });
}

async function until(client: RealtimeClient, type: string, timeoutMs = 30_000): Promise<ServerEvent> {
  return (await client.until(type, timeoutMs)).event;
}

/**
 * The whole loop with real engines: a human reader's sentence streamed in, Silero VAD finds the
 * turn, pocketsphinx transcribes it, the language model answers and the answer is spoken back.
 */
describe('realtime e2e: speech to speech with real VAD, recognizer and voice', function () {
  this.timeout(120_000);
  // Every server event these clients saw conforms to the GA schema (and none is never-emitted).
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  let s: RealtimeTestServer;
  before(async function () {
    requireRecognizer();
    if (!existsSync(CLIP)) throw new Error(`${CLIP} is missing: run npm run setup`);
    s = await startRealtimeServer();
  });
  after(async () => s?.close());

  const session = {
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 16000 },
        turn_detection: { type: 'server_vad', silence_duration_ms: 500, prefix_padding_ms: 300 },
        transcription: { model: 'svc-stt-3.1' },
      },
    },
  };

  it('detects the turn, transcribes it and answers with speech', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, session);
    speak(client, Buffer.concat([silence(1000), clipSamples(), silence(1500)]));

    const started = await until(client, 'input_audio_buffer.speech_started');
    expect(started.audio_start_ms).to.be.within(500, 1300);
    const stopped = await until(client, 'input_audio_buffer.speech_stopped');
    expect(stopped.item_id).to.equal(started.item_id);
    const committed = await until(client, 'input_audio_buffer.committed');
    expect(committed.item_id).to.equal(started.item_id);
    const transcript = await until(client, 'conversation.item.input_audio_transcription.completed');
    const heard = new Set((transcript.transcript as string).toLowerCase().split(/\s+/));
    const matching = WORDS.split(' ').filter((w) => heard.has(w)).length;
    expect(matching, transcript.transcript).to.be.at.least(10);

    const done = await until(client, 'response.done');
    expect(done.response.status).to.equal('completed');
    const audio = client.events.filter((e) => e.type === 'response.output_audio.delta');
    const bytes = audio.reduce((n, e) => n + Buffer.from(e.delta, 'base64').length, 0);
    expect(bytes / 2 / 24000).to.be.greaterThan(1); // a spoken answer of more than a second
    await client.close();
  });

  it('barge-in: speech during a spoken answer cancels it', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, session);
    speak(client, Buffer.concat([silence(500), clipSamples(), silence(800)]));
    const first = await until(client, 'response.created');
    // The user talks over the answer.
    speak(client, Buffer.concat([clipSamples(), silence(800)]));
    let done: ServerEvent;
    do done = await until(client, 'response.done');
    while (done.response.id !== first.response.id);
    expect(done.response.status).to.equal('cancelled');
    const types = client.events.map((e) => e.type);
    const createdAt = client.events.indexOf(first);
    const doneAt = client.events.indexOf(done);
    expect(types.slice(createdAt, doneAt)).to.include('input_audio_buffer.speech_started');
    await client.close();
  });
});
