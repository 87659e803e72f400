import { expect } from 'chai';
import { RealtimeClient, openSession } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { b64, REFERENCE_TEXT, registerJson, speechBytes } from '../voices/voice-helpers.js';

async function mint(s: RealtimeTestServer, apiKey: string): Promise<string> {
  const res = await fetch(`${s.baseUrl}/v1/realtime/client_secrets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(res.status).to.equal(200);
  return ((await res.json()) as { value: string }).value;
}

const configure = (voice?: string) => ({
  type: 'session.update',
  session: {
    type: 'realtime',
    model: 'svc-realtime',
    output_modalities: voice ? ['audio'] : ['text'],
    audio: { input: { turn_detection: null }, ...(voice ? { output: { voice } } : {}) },
  },
});

/** An ephemeral key acts as the API key that minted it: its voices, its caps, its revocation. */
describe('realtime e2e: client secrets are bound to the minting API key', function () {
  this.timeout(60_000);
  let s: RealtimeTestServer;
  before(async () => (s = await startRealtimeServer({ env: { SVC_REALTIME_MAX_SESSIONS_PER_KEY: '2' } })));
  after(async () => s?.close());

  it("a secret session may use the minting key's registered voice, not another key's", async () => {
    const other = await s.createApiKey('other');
    const reference = await speechBytes(s, other, { input: REFERENCE_TEXT, voice: 'awb', response_format: 'wav' });
    const otherVoice = (await registerJson(s, other, { ref_audio: b64(reference) })).body.voice as string;

    const ownSecret = await mint(s, other);
    const own = RealtimeClient.connect(s.wsUrl, { protocols: ['realtime', `svc-client-secret.${ownSecret}`] });
    own.send(configure(otherVoice));
    expect((await own.next()).type).to.equal('session.created');
    await own.close();

    const foreignSecret = await mint(s, s.apiKey);
    const foreign = RealtimeClient.connect(s.wsUrl, { protocols: ['realtime', `svc-client-secret.${foreignSecret}`] });
    foreign.send(configure(otherVoice));
    expect((await foreign.next()).error.code).to.equal('voice_not_found');
    expect((await foreign.closed).code).to.equal(1000);
  });

  it('secret sessions count against the per-key cap of the minting key (1013)', async () => {
    const key = await s.createApiKey('capped');
    const first = await openSession(s.wsUrl, key);
    const second = RealtimeClient.connect(s.wsUrl, { protocols: ['realtime', `svc-client-secret.${await mint(s, key)}`] });
    await second.opened;
    const third = RealtimeClient.connect(s.wsUrl, { protocols: ['realtime', `svc-client-secret.${await mint(s, key)}`] });
    expect((await third.closed).code).to.equal(1013);
    await first.client.close();
    await second.close();
  });

  it('accepts an ephemeral key in an Authorization: Bearer header (as server-side SDKs send it)', async () => {
    const secret = await mint(s, s.apiKey);
    const client = RealtimeClient.connect(s.wsUrl, { headers: { Authorization: `Bearer ${secret}` } });
    client.send(configure());
    expect((await client.next()).type).to.equal('session.created');
    await client.close();
    const bogus = RealtimeClient.connect(s.wsUrl, { headers: { Authorization: 'Bearer svc-eph-not-a-real-secret' } });
    expect((await bogus.closed).code).to.equal(3000);
  });

  it('a secret stops working when its API key is revoked (close 3000)', async () => {
    const keys = s.server.services.get(SERVER_TOKENS.ManageApiKeys);
    const { record, secret: apiKey } = await keys.create('to-revoke');
    const ephemeral = await mint(s, apiKey);
    expect(await keys.revoke(record.id)).to.equal(true);
    const client = RealtimeClient.connect(s.wsUrl, { protocols: ['realtime', `svc-client-secret.${ephemeral}`] });
    expect((await client.closed).code).to.equal(3000);
  });
});
