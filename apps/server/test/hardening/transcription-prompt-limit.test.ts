import { expect } from 'chai';
import { requireRecognizer } from '../helpers/pocketsphinx.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { wavFile } from '../helpers/wav.js';

/** One second of a quiet tone: real audio, transcribed (to nothing much) in a few milliseconds. */
function toneWav(): Buffer {
  const samples = new Int16Array(16000);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(2000 * Math.sin((2 * Math.PI * 220 * i) / 16000));
  return wavFile(samples, 16000);
}

/** Issue 17, defect 6: `prompt` holds at most 4096 bytes; exactly that is accepted, more is a 400 invalid_parameter (not a 413). */
describe('POST /v1/audio/transcriptions: the prompt limit is 4096 bytes, inclusive (real server)', function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async () => {
    requireRecognizer();
    t = await startTestServer();
  });
  after(async () => t?.close());

  const transcribe = async (prompt: string) => {
    const form = new FormData();
    form.append('file', new Blob([toneWav()], { type: 'audio/wav' }), 'tone.wav');
    form.append('model', 'whisper-1');
    form.append('prompt', prompt);
    const res = await fetch(`${t.baseUrl}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.apiKey}` },
      body: form,
    });
    return {
      status: res.status,
      body: (await res.json()) as { text?: string; error?: { type: string; code: string; param: string | null; message: string } },
    };
  };

  it('exactly 4096 bytes (ASCII, and 2048 two-byte characters) is accepted', async () => {
    for (const prompt of ['p'.repeat(4096), 'é'.repeat(2048)]) {
      expect(Buffer.byteLength(prompt)).to.equal(4096);
      const r = await transcribe(prompt);
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.text).to.be.a('string');
    }
  });

  it('4097 bytes, or far more, is a 400 invalid_parameter naming prompt', async () => {
    for (const prompt of ['p'.repeat(4097), `${'é'.repeat(2048)}x`, 'p'.repeat(200_000)]) {
      const r = await transcribe(prompt);
      expect(r.status, JSON.stringify(r.body)).to.equal(400);
      expect(r.body.error).to.include({ type: 'invalid_parameter', code: 'invalid_parameter', param: 'prompt' });
      expect(r.body.error!.message).to.include('4096 bytes');
    }
  });
});
