import { expect } from 'chai';
import { RealtimeClient, openSession } from '../helpers/realtime-client.js';
import { startRealtimeServer, type RealtimeTestServer } from '../helpers/realtime-server.js';
import { SERVER_TOKENS } from '../../src/tokens.js';

/** Issue 7, "also seen": revoking a key ends its open realtime sessions within seconds (close 3000). */
describe('hardening: revoking an API key closes its open realtime sessions (real server)', function () {
  this.timeout(60_000);
  let s: RealtimeTestServer;
  before(async () => (s = await startRealtimeServer()));
  after(async () => s?.close());

  it('sessions opened with the key and with an ephemeral key it minted close with 3000 within 5 s; other keys stay open', async () => {
    const keys = s.server.services.get(SERVER_TOKENS.ManageApiKeys);
    const { record, secret: apiKey } = await keys.create('to-revoke');
    const direct = await openSession(s.wsUrl, apiKey);
    const res = await fetch(`${s.baseUrl}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    const ephemeral = ((await res.json()) as { value: string }).value;
    const viaSecret = RealtimeClient.connect(s.wsUrl, { protocols: ['realtime', `svc-client-secret.${ephemeral}`] });
    viaSecret.send({
      type: 'session.update',
      session: { type: 'realtime', model: 'svc-realtime', output_modalities: ['text'], audio: { input: { turn_detection: null } } },
    });
    expect((await viaSecret.next()).type).to.equal('session.created');
    const bystander = await openSession(s.wsUrl, s.apiKey);

    const revokedAt = Date.now();
    expect(await keys.revoke(record.id)).to.equal(true);
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still open after 5 s')), 5000));
    const [a, b] = await Promise.race([Promise.all([direct.client.closed, viaSecret.closed]), timeout]);
    expect(Date.now() - revokedAt).to.be.lessThan(5000);
    for (const closed of [a, b]) {
      expect(closed.code).to.equal(3000);
      expect(closed.reason).to.match(/revoked/);
    }
    // The other key's session is untouched.
    bystander.client.send({ type: 'input_audio_buffer.clear' });
    expect((await bystander.client.next()).type).to.equal('input_audio_buffer.cleared');
    await bystander.client.close();
  });
});
