import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { nextCall } from '../helpers/sip-server.js';
import { hasBaresip, placeCall, type BaresipCall } from '../helpers/baresip.js';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { runKeysCli } from '../../src/cli/keys.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

async function api(t: TestServer, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${t.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

const CONFIG = '/v1/realtime/sip/config';

function skipWithoutPhone(ctx: Mocha.Context): void {
  if (hasBaresip()) return;
  console.log('      skipped: baresip is not installed (bash scripts/setup-test-sip.sh installs it)');
  ctx.skip();
}
const ALICE = { username: 'alice-pbx', password: 'alice-long-password-1' };
const BOB = { username: 'bob-pbx', password: 'bob-long-password-22' };
const CAROL = { username: 'carol-pbx', password: 'carol-long-password-333' };
const ha1 = (u: string, p: string) => createHash('md5').update(`${u}:svc:${p}`).digest('hex');

describe('SIP credentials and call webhooks per API key (the real server, a SQLite file, baresip)', function () {
  this.timeout(180_000);
  let dataDir: string;
  let t: TestServer;
  const keys: { env: string; a: string; b: string } = { env: '', a: '', b: '' };
  const receiverA = new WebhookReceiver();
  const receiverB = new WebhookReceiver();
  const secrets = { a: '', b: '' };
  const phones: BaresipCall[] = [];
  const env = () => ({ SVC_SIP_PORT: '0', SVC_SIP_API_KEY_ID: keys.env, SVC_SIP_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-sipkeys-'));
    const first = await startTestServer({ dataDir });
    const manage = first.server.services.get(SERVER_TOKENS.ManageApiKeys);
    keys.env = (await manage.create('phone')).record.id;
    keys.a = (await manage.create('tenant a')).secret;
    keys.b = (await manage.create('tenant b')).secret;
    await first.close();
    await receiverA.listen();
    await receiverB.listen();
    t = await startTestServer({ dataDir, env: env() });
  });

  afterEach(async () => {
    for (const phone of phones.splice(0)) {
      await phone.stop();
      phone.cleanup();
    }
  });

  after(async () => {
    await t?.close();
    await receiverA.close();
    await receiverB.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function dial(auth?: { username: string; password: string }): Promise<BaresipCall> {
    const phone = await placeCall({
      host: '127.0.0.1',
      port: t.server.sip!.server.address.port,
      microphone: new Int16Array(8000 * 30),
      ...(auth ? { auth } : {}),
    });
    phones.push(phone);
    return phone;
  }

  it('each key stores its own credentials and webhook; the secret is shown once, never read back, and bad input is refused with its param', async () => {
    const a = await api(t, 'POST', CONFIG, keys.a, { ...ALICE, webhook_url: receiverA.url });
    expect(a.status).to.equal(200);
    expect(a.json).to.include({ object: 'realtime.sip_config', username: ALICE.username, realm: 'svc', webhook_url: receiverA.url });
    expect(a.json.webhook_secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(a.json).to.not.have.property('password');
    secrets.a = a.json.webhook_secret;

    const taken = await api(t, 'POST', CONFIG, keys.b, { ...ALICE, password: 'another-long-password' });
    expect(taken.status).to.equal(400);
    expect(taken.json.error).to.include({ type: 'invalid_request_error', param: 'username' });
    const b = await api(t, 'POST', CONFIG, keys.b, { ...BOB, webhook_url: receiverB.url });
    expect(b.status).to.equal(200);
    secrets.b = b.json.webhook_secret;
    expect(secrets.b)
      .to.match(/^whsec_/)
      .and.not.equal(secrets.a);

    // Read back: no password, no secret; each key sees its own.
    const readA = await api(t, 'GET', CONFIG, keys.a);
    expect(readA.status).to.equal(200);
    expect(readA.json).to.include({ username: ALICE.username, webhook_url: receiverA.url });
    expect(JSON.stringify(readA.json)).to.not.include(ALICE.password).and.not.include(secrets.a.slice(6));
    expect(readA.json).to.not.have.property('webhook_secret');
    expect((await api(t, 'GET', CONFIG, keys.b)).json.username).to.equal(BOB.username);
    // Saving again keeps the secret (it is not shown again).
    const again = await api(t, 'POST', CONFIG, keys.a, { ...ALICE, webhook_url: receiverA.url });
    expect(again.status).to.equal(200);
    expect(again.json).to.not.have.property('webhook_secret');

    const refused = async (body: unknown, param: string) => {
      const r = await api(t, 'POST', CONFIG, keys.a, body);
      expect(r.status, JSON.stringify(r.json)).to.equal(400);
      expect(r.json.error.param).to.equal(param);
      expect(r.json.error.message).to.be.a('string');
    };
    await refused({ ...ALICE, webhook_url: 'http://10.1.2.3/hook' }, 'webhook_url');
    await refused({ ...ALICE, webhook_url: 'http://[::1]:9/hook' }, 'webhook_url');
    await refused({ ...ALICE, webhook_url: 'ftp://example.com/hook' }, 'webhook_url');
    await refused({ ...ALICE, password: 'short' }, 'password');
    await refused({ ...ALICE, username: 'has space' }, 'username');
    await refused({ username: ALICE.username }, 'password');
    await refused({ ...ALICE, session: { voice: 42 } }, 'session.voice');
    await refused({ ...ALICE, extra: 1 }, 'extra');
    // Nothing of the refused requests was stored.
    expect((await api(t, 'GET', CONFIG, keys.a)).json.webhook_url).to.equal(receiverA.url);

    // Authenticated like every endpoint; an ephemeral key may not use it.
    expect((await api(t, 'GET', CONFIG, 'svc-not-a-key')).status).to.equal(401);
    const minted = await api(t, 'POST', '/v1/realtime/client_secrets', keys.a, {});
    expect(minted.status).to.equal(200);
    expect((await api(t, 'GET', CONFIG, minted.json.value)).status).to.equal(401);
    expect((await api(t, 'POST', CONFIG, minted.json.value, { ...ALICE, username: 'eph-user' })).status).to.equal(401);
  });

  it('the SQLite file holds the HA1 but neither password nor webhook secret; the key file is 0600', () => {
    const files = ['svc.sqlite', 'svc.sqlite-wal'].map((f) => join(dataDir, f)).filter((f) => existsSync(f));
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(bytes.includes(ha1(ALICE.username, ALICE.password)), 'the HA1 is stored').to.equal(true);
    for (const secret of [ALICE.password, BOB.password, secrets.a, secrets.a.slice(6), secrets.b.slice(6)])
      expect(bytes.includes(secret), `'${secret}' in the database file`).to.equal(false);
    expect(statSync(join(dataDir, 'sip-config.key')).mode & 0o777).to.equal(0o600);
  });

  it("each phone's call reaches its own key's webhook signed with that key's secret, and only that key controls it", async function () {
    skipWithoutPhone(this);
    const seenA = receiverA.deliveries.length;
    const seenB = receiverB.deliveries.length;
    await dial(ALICE);
    const callA = (await receiverA.nextEvent(secrets.a, seenA, 20_000)).data.call_id;
    const deliveryA = receiverA.deliveries[seenA]!;
    const wrongSecret = await new OpenAI({ apiKey: 'unused' }).webhooks
      .verifySignature(deliveryA.body, deliveryA.headers as Record<string, string>, secrets.b)
      .catch((e: unknown) => e);
    expect(wrongSecret, "key B's secret does not verify key A's delivery").to.be.instanceOf(Error);
    expect(receiverB.deliveries.length).to.equal(seenB);
    // Key B (and the server's own key) cannot touch key A's call: 404 exactly as an unknown id.
    for (const action of ['accept', 'reject', 'hangup']) {
      const r = await api(t, 'POST', `/v1/realtime/calls/${callA}/${action}`, keys.b, action === 'accept' ? { type: 'realtime' } : {});
      expect(r.status, action).to.equal(404);
      expect(r.json.error.type).to.equal('call_not_found');
    }
    const answered = nextCall(t, 20_000);
    expect((await api(t, 'POST', `/v1/realtime/calls/${callA}/accept`, keys.a, { type: 'realtime' })).status).to.equal(200);
    const call = await answered;
    expect(call.id).to.equal(callA);
    expect((await api(t, 'POST', `/v1/realtime/calls/${callA}/hangup`, keys.b)).status).to.equal(404);
    expect((await api(t, 'POST', `/v1/realtime/calls/${callA}/hangup`, keys.a)).status).to.equal(200);

    await dial(BOB);
    const callB = (await receiverB.nextEvent(secrets.b, seenB, 20_000)).data.call_id;
    expect(callB).to.not.equal(callA);
    expect((await api(t, 'POST', `/v1/realtime/calls/${callB}/accept`, keys.a, {})).status).to.equal(404);
    expect((await api(t, 'POST', `/v1/realtime/calls/${callB}/reject`, keys.b, { status_code: 486 })).status).to.equal(200);
    expect(receiverA.deliveries.length, "key B's call never reaches key A's webhook").to.equal(seenA + 1);
  });

  it('a wrong password and no credentials at all are refused with 401 before anything is announced', async function () {
    skipWithoutPhone(this);
    const seen = receiverA.deliveries.length;
    for (const auth of [{ username: ALICE.username, password: 'not-the-password' }, undefined]) {
      const phone = await dial(auth);
      await phone.printed(/SIP\/2\.0 401 Unauthorized/, 15_000);
      await phone.printed(/terminated|failed|401/i, 15_000);
      expect(t.server.sip!.server.activeCalls()).to.equal(0);
    }
    expect(receiverA.deliveries.length).to.equal(seen);
  });

  it('a rotated secret signs from then on; the configuration survives a restart; a deleted one lets no phone in', async function () {
    skipWithoutPhone(this);
    const rotated = await api(t, 'POST', `${CONFIG}/rotate_webhook_secret`, keys.a);
    expect(rotated.status).to.equal(200);
    expect(rotated.json.webhook_secret)
      .to.match(/^whsec_/)
      .and.not.equal(secrets.a);
    const old = secrets.a;
    secrets.a = rotated.json.webhook_secret;

    await t.close();
    t = await startTestServer({ dataDir, env: env() });
    expect((await api(t, 'GET', CONFIG, keys.a)).json).to.include({ username: ALICE.username, webhook_url: receiverA.url });

    const seen = receiverA.deliveries.length;
    await dial(ALICE);
    const callId = (await receiverA.nextEvent(secrets.a, seen, 20_000)).data.call_id;
    const delivery = receiverA.deliveries[seen]!;
    const withOld = await new OpenAI({ apiKey: 'unused' }).webhooks
      .verifySignature(delivery.body, delivery.headers as Record<string, string>, old)
      .catch((e: unknown) => e);
    expect(withOld, 'the rotated-out secret no longer verifies').to.be.instanceOf(Error);
    expect((await api(t, 'POST', `/v1/realtime/calls/${callId}/reject`, keys.a, {})).status).to.equal(200);

    expect((await api(t, 'DELETE', CONFIG, keys.b)).json).to.deep.equal({ object: 'realtime.sip_config', deleted: true });
    expect((await api(t, 'GET', CONFIG, keys.b)).status).to.equal(404);
    expect((await api(t, 'DELETE', CONFIG, keys.b)).status).to.equal(404);
    const phone = await dial(BOB);
    await phone.printed(/SIP\/2\.0 401 Unauthorized/, 15_000);
    await phone.printed(/terminated|failed|401/i, 15_000);
    expect(t.server.sip!.server.activeCalls()).to.equal(0);
  });

  it('revoking a key (the keys CLI: another container on the same database) deletes its SIP configuration: the user name is free, its phone is an unknown user', async () => {
    const manage = t.server.services.get(SERVER_TOKENS.ManageApiKeys);
    const carolKey = await manage.create('tenant c');
    const stored = await api(t, 'POST', CONFIG, carolKey.secret, { ...CAROL, webhook_url: receiverA.url });
    expect(stored.status).to.equal(200);
    expect(stored.json.webhook_secret).to.match(/^whsec_/);
    const claimedEarly = await api(t, 'POST', CONFIG, keys.b, { ...CAROL, password: 'bob-takes-carols-name' });
    expect(claimedEarly.status, 'taken while the key is active').to.equal(400);
    expect(claimedEarly.json.error).to.include({ type: 'invalid_request_error', param: 'username' });

    // The CLI builds its own container (the foundation module only: no SIP port, no SIP module) and
    // its own connection to the SQLite file: what it deletes, the server can only see in the database.
    const saved = process.env.SVC_DATA_DIR;
    process.env.SVC_DATA_DIR = dataDir;
    const out: string[] = [];
    try {
      expect(await runKeysCli(['revoke', '--id', carolKey.record.id], (line) => out.push(line))).to.equal(0);
    } finally {
      if (saved === undefined) delete process.env.SVC_DATA_DIR;
      else process.env.SVC_DATA_DIR = saved;
    }
    expect(out).to.deep.equal([`revoked ${carolKey.record.id}`]);
    const configs = t.server.services.get(SERVER_TOKENS.SipConfigs);
    expect(await configs.get(carolKey.record.id), 'the server reads no configuration of the revoked key').to.equal(null);
    expect(await configs.findByUsername(CAROL.username)).to.equal(null);
    const revokedRead = await api(t, 'GET', CONFIG, carolKey.secret);
    expect(revokedRead.status).to.equal(401);
    expect(revokedRead.json.error.message).to.be.a('string');

    if (hasBaresip()) {
      // Its phone proves the old credentials: challenged again as an unknown user (401), not let in
      // as far as the key check (403), and nothing is announced.
      const seen = receiverA.deliveries.length;
      const phone = await dial(CAROL);
      await phone.printed(/SIP\/2\.0 401 Unauthorized[\s\S]*Authorization: Digest[\s\S]*SIP\/2\.0 401 Unauthorized/, 15_000);
      await phone.printed(/session closed: 401 Unauthorized/, 15_000);
      expect(phone.output()).to.not.match(/SIP\/2\.0 (100 Trying|403 Forbidden)/);
      expect(receiverA.deliveries.length).to.equal(seen);
    } else console.log('      (the phone steps skipped: baresip is not installed)');

    const claimed = await api(t, 'POST', CONFIG, keys.b, { ...CAROL, password: 'bob-takes-carols-name', webhook_url: receiverB.url });
    expect(claimed.status, JSON.stringify(claimed.json)).to.equal(200);
    expect(claimed.json.username).to.equal(CAROL.username);
    const bobId = (await manage.authenticate(keys.b)).apiKeyId;
    expect((await configs.findByUsername(CAROL.username))?.apiKeyId).to.equal(bobId);

    if (hasBaresip()) {
      // The name now selects key B: its phone's call is announced to B's webhook, signed with B's new secret.
      const seen = receiverB.deliveries.length;
      await dial({ username: CAROL.username, password: 'bob-takes-carols-name' });
      const callId = (await receiverB.nextEvent(claimed.json.webhook_secret, seen, 20_000)).data.call_id;
      expect((await api(t, 'POST', `/v1/realtime/calls/${callId}/reject`, keys.b, {})).status).to.equal(200);
    }
  });
});
