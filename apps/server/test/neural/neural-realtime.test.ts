import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKokoroModel } from '@svc/adapters-testing';
import { openSession, userText, takeViolations, type RealtimeClient } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';

function toneHz(samples: Int16Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings / 2) * (rate / samples.length);
}

async function spokenReply(client: RealtimeClient): Promise<Int16Array> {
  client.send({ type: 'conversation.item.create', item: userText('Please repeat after me. The quick brown fox jumps over the lazy dog.') });
  await client.next();
  client.send({ type: 'response.create' });
  const chunks: Buffer[] = [];
  for (;;) {
    const event = await client.next(30_000);
    if (event.type === 'response.output_audio.delta') chunks.push(Buffer.from(event.delta, 'base64'));
    if (event.type === 'response.done') {
      expect(event.response.status).to.equal('completed');
      break;
    }
  }
  const audio = Buffer.concat(chunks);
  return new Int16Array(audio.buffer, audio.byteOffset, audio.length / 2);
}

describe('neural voices in realtime sessions (test-built Kokoro model)', function () {
  this.timeout(60_000);
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  let s: RealtimeTestServer;
  let modelsDir: string;

  before(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'svc-neural-rt-'));
    await writeKokoroModel(join(modelsDir, 'kokoro'), { af_low: () => 0, am_high: () => 0.5 }, { hop: 600 });
    s = await startRealtimeServer({ env: { SVC_MODELS_DIR: modelsDir } });
  });
  after(async () => {
    await s?.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('a session speaks its replies with a Kokoro voice and with a blend of two', async () => {
    const plain = await openSession(s.wsUrl, s.apiKey, {
      output_modalities: ['audio'],
      audio: { input: { turn_detection: null }, output: { voice: 'kokoro-af_low' } },
    });
    const low = await spokenReply(plain.client);
    await plain.client.close();
    const mixed = await openSession(s.wsUrl, s.apiKey, {
      output_modalities: ['audio'],
      audio: { input: { turn_detection: null }, output: { voice: 'kokoro-af_low+am_high' } },
    });
    expect(mixed.created.session.audio.output.voice).to.equal('kokoro-af_low+am_high');
    const blend = await spokenReply(mixed.client);
    await mixed.client.close();
    expect(low.length / 24000).to.be.greaterThan(1);
    // equal parts: style 0.25 above af_low's, 400 Hz per style unit in the test model
    expect(toneHz(blend, 24000) - toneHz(low, 24000)).to.be.closeTo(100, 15);
  });

  it('an unknown blend part is refused like any unknown voice', async () => {
    const { client } = await openSession(s.wsUrl, s.apiKey, { output_modalities: ['audio'], audio: { input: { turn_detection: null } } });
    client.send({ type: 'session.update', session: { type: 'realtime', audio: { output: { voice: 'kokoro-af_low+af_nobody' } } } });
    const answer = await client.next();
    expect(answer.type).to.equal('error');
    expect(answer.error).to.include({ code: 'voice_not_found', param: 'session.audio.output.voice' });
    await client.close();
  });
});
