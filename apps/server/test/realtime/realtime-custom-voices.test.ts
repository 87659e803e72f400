import { expect } from 'chai';
import { RealtimeClient, openSession, takeViolations } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { b64, REFERENCE_TEXT, registerJson, speechBytes } from '../voices/voice-helpers.js';

/** audio.output.voice is validated against the caller's registered voices (scoped like REST) and the presets. */
describe('realtime e2e: output voice from the voices API', function () {
  this.timeout(120_000);
  // Every server event these clients saw conforms to the GA schema (and none is never-emitted).
  afterEach(() => expect(takeViolations()).to.deep.equal([]));
  let s: RealtimeTestServer;
  let voice: string;
  before(async () => {
    s = await startRealtimeServer();
    const reference = await speechBytes(s, s.apiKey, { input: REFERENCE_TEXT, voice: 'rms', response_format: 'wav' });
    const registered = await registerJson(s, s.apiKey, { ref_audio: b64(reference), ref_text: REFERENCE_TEXT });
    expect(registered.status).to.equal(200);
    voice = registered.body.voice;
  });
  after(async () => s?.close());

  const audioSession = (v: string) => ({ output_modalities: ['audio'], audio: { input: { turn_detection: null }, output: { voice: v } } });

  it('accepts the caller own registered voice', async () => {
    const { client, created } = await openSession(s.wsUrl, s.apiKey, audioSession(voice));
    expect(created.session.audio.output.voice).to.equal(voice);
    await client.close();
  });

  it("refuses another key's voice exactly like an unknown one: error, then close 1000", async () => {
    const other = await s.createApiKey('other');
    for (const candidate of [voice, 'voice_00000000000000000000000000000000']) {
      const client = RealtimeClient.connect(s.wsUrl, { apiKey: other });
      client.send({ type: 'session.update', session: { type: 'realtime', model: 'svc-realtime', ...audioSession(candidate) } });
      const error = await client.next();
      expect(error.type).to.equal('error');
      expect(error.error).to.include({ code: 'voice_not_found', param: 'session.audio.output.voice' });
      expect((await client.closed).code).to.equal(1000);
    }
  });

  it('stops accepting a voice once it is deleted', async () => {
    const res = await fetch(`${s.baseUrl}/v1/audio/voices/${voice}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${s.apiKey}` },
    });
    expect(res.status).to.equal(200);
    const client = RealtimeClient.connect(s.wsUrl, { apiKey: s.apiKey });
    client.send({ type: 'session.update', session: { type: 'realtime', model: 'svc-realtime', ...audioSession(voice) } });
    expect((await client.next()).error.code).to.equal('voice_not_found');
    expect((await client.closed).code).to.equal(1000);
  });
});
