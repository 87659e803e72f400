import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTestAsrFolder } from '@svc/adapters-testing';
import { startTestServer } from '../helpers/test-server.js';
import { sendRecording, WyomingClient } from '../helpers/wyoming-client.js';

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';

async function describeServer(port: number): Promise<Record<string, unknown>> {
  const c = await WyomingClient.connect(port);
  c.send('describe');
  const info = await c.until('info');
  await c.close();
  return info.data;
}

describe('Wyoming port with other recognizers (SVC_ASR_ENGINE)', function () {
  this.timeout(180_000);
  let modelsDir: string;
  before(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'svc-wyoming-asr-'));
    await writeTestAsrFolder(join(modelsDir, 'whisper-test'), { family: 'whisper' });
  });
  after(() => rmSync(modelsDir, { recursive: true, force: true }));

  it('Whisper (test-built model): its languages in info, no transcript streaming, the transcript the REST endpoint gives for the same audio', async () => {
    const t = await startTestServer({ env: { SVC_WYOMING_PORT: '0', SVC_MODELS_DIR: modelsDir, SVC_ASR_ENGINE: 'whisper:whisper-test' } });
    try {
      const port = t.server.wyoming!.server.address.port;
      const asr = ((await describeServer(port)).asr as any[])[0];
      expect(asr.supports_transcript_streaming).to.equal(false);
      expect(asr.models[0].name).to.equal('whisper:whisper-test');
      expect(asr.models[0].languages).to.include.members(['en', 'de']);

      const wav = readFileSync(CLIP);
      const form = new FormData();
      form.append('file', new Blob([wav], { type: 'audio/wav' }), 'clip.wav');
      form.append('language', 'en');
      const rest = (await (
        await fetch(`${t.baseUrl}/v1/audio/transcriptions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${t.apiKey}` },
          body: form,
        })
      ).json()) as { text: string };

      const c = await WyomingClient.connect(port);
      c.send('transcribe', { language: 'en' });
      sendRecording(c, wav.subarray(wav.indexOf('data') + 8));
      const transcript = await c.until('transcript', 60_000);
      await c.close();
      expect(transcript.data).to.deep.equal({ text: rest.text, language: 'en' });
      expect(c.events.map((e) => e.type)).to.deep.equal(['transcript']);
    } finally {
      await t.close();
    }
  });

  it('without a recognizer (off): no ASR program in info, and a recording is refused with transcription_unavailable', async () => {
    const t = await startTestServer({ env: { SVC_WYOMING_PORT: '0', SVC_ASR_ENGINE: 'off' } });
    try {
      const port = t.server.wyoming!.server.address.port;
      expect((await describeServer(port)).asr).to.deep.equal([]);
      const c = await WyomingClient.connect(port);
      c.send('audio-start', { rate: 16000, width: 2, channels: 1 });
      expect((await c.until('error')).data).to.include({ code: 'transcription_unavailable' });
      await c.closed;
    } finally {
      await t.close();
    }
  });
});
