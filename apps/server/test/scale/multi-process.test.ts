import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { getJson, postJson } from '../helpers/http.js';
import type { RealtimeClient } from '../helpers/realtime-client.js';
import {
  connectRealtime,
  connectWhenFreed,
  describeWithScaleStack,
  newKey,
  REFERENCE_CLIP,
  startApiCluster,
  type ApiCluster,
} from './scale-stack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two API processes (role both) on one Postgres + one Redis + one blob directory: what one process
 * does, the other sees, and the limits hold for both together.
 */
describeWithScaleStack('two API processes share state', function (this: Mocha.Suite) {
  this.timeout(240_000);
  const voiceKey = newKey('voices');
  const rateKey = newKey('rate');
  const capKey = newKey('caps');
  const otherKey = newKey('other');
  const ephKey = newKey('eph');
  const voiceCapKey = newKey('voicecap');
  const LEASE_MS = 1500;
  let cluster: ApiCluster;
  const open: RealtimeClient[] = [];

  before(async () => {
    cluster = await startApiCluster(2, {
      SVC_API_KEYS: [voiceKey, rateKey, capKey, otherKey, ephKey, voiceCapKey].join(','),
      SVC_RATE_LIMIT_PER_MINUTE: '1',
      SVC_RATE_LIMIT_BURST: '3',
      SVC_REALTIME_MAX_SESSIONS: '4',
      SVC_REALTIME_MAX_SESSIONS_PER_KEY: '2',
      SVC_REALTIME_LEASE_MS: String(LEASE_MS),
      SVC_VOICES_MAX_PER_KEY: '2',
    });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });
  after(async () => {
    await cluster?.stop();
  });
  const failWithLogs = (label: string) =>
    `${label}\n--- API 1 ---\n${cluster.apis[0]!.tail(20)}\n--- API 2 ---\n${cluster.apis[1]!.tail(20)}`;

  it('a voice registered through API 1 is listed, fetched and spoken through API 2', async () => {
    const [a, b] = cluster.apis as [NonNullable<ApiCluster['apis'][0]>, NonNullable<ApiCluster['apis'][0]>];
    const res = await postJson(`${a.url}/v1/audio/voices`, { ref_audio: readFileSync(REFERENCE_CLIP).toString('base64') }, voiceKey);
    const created = (await res.json()) as { voice: string };
    expect(res.status, failWithLogs(JSON.stringify(created))).to.equal(200);
    const listed = await getJson(`${b.url}/v1/audio/voices`, voiceKey);
    expect(listed.body.data.map((v: { voice: string }) => v.voice)).to.include(created.voice);
    expect((await getJson(`${b.url}/v1/audio/voices/${created.voice}`, voiceKey)).status).to.equal(200);
    expect((await getJson(`${b.url}/v1/audio/voices/${created.voice}`, otherKey)).status, 'still scoped to its key').to.equal(404);
    const speech = await postJson(
      `${b.url}/v1/audio/speech`,
      { input: 'Hello from the other process.', voice: created.voice, response_format: 'wav' },
      voiceKey,
    );
    const audio = Buffer.from(await speech.arrayBuffer());
    expect(speech.status, audio.toString().slice(0, 300)).to.equal(200);
    expect(audio.length).to.be.above(10_000);
  });

  it('the cap of stored voices (SVC_VOICES_MAX_PER_KEY) is one count in the shared database', async () => {
    const [a, b] = cluster.apis as [NonNullable<ApiCluster['apis'][0]>, NonNullable<ApiCluster['apis'][0]>];
    const speech = async (voice: string) => {
      const res = await postJson(
        `${a.url}/v1/audio/speech`,
        { input: 'One voice per speaker, two per key.', voice, response_format: 'wav' },
        voiceCapKey,
      );
      return Buffer.from(await res.arrayBuffer()).toString('base64');
    };
    const clips = [readFileSync(REFERENCE_CLIP).toString('base64'), await speech('slt'), await speech('awb')];
    const register = (url: string, clip: string) => postJson(`${url}/v1/audio/voices`, { ref_audio: clip }, voiceCapKey);
    expect((await register(a.url, clips[0]!)).status, failWithLogs('first voice')).to.equal(200);
    expect((await register(b.url, clips[1]!)).status, failWithLogs('second voice')).to.equal(200);
    // API 1 stored one of them: only the database knows the key has two.
    const refused = await register(a.url, clips[2]!);
    expect(refused.status).to.equal(429);
    expect(((await refused.json()) as { error: { type: string } }).error.type).to.equal('voice_limit_exceeded');
  });

  it('the speech rate limit is one bucket across both processes', async () => {
    const [a, b] = cluster.apis;
    const statuses: number[] = [];
    for (const p of [a!, b!, a!, b!, a!]) {
      const res = await postJson(`${p.url}/v1/audio/speech`, { input: 'Hi.', response_format: 'pcm' }, rateKey);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
  });

  it('the realtime caps (per key and global) hold across both processes (1013)', async () => {
    const [a, b] = cluster.apis;
    const s1 = await connectRealtime(a!, { apiKey: capKey });
    const s2 = await connectRealtime(b!, { apiKey: capKey });
    open.push(s1.client, s2.client);
    expect([s1.refused, s2.refused]).to.deep.equal([null, null]);
    const third = await connectRealtime(a!, { apiKey: capKey });
    open.push(third.client);
    expect(third.refused, 'per-key cap 2, counted over both processes').to.equal(1013);
    expect(third.client.closeInfo?.reason).to.match(/max concurrency/);

    const o1 = await connectRealtime(b!, { apiKey: otherKey });
    const o2 = await connectRealtime(a!, { apiKey: otherKey });
    open.push(o1.client, o2.client);
    expect([o1.refused, o2.refused]).to.deep.equal([null, null]);
    const overGlobal = await connectRealtime(b!, { apiKey: voiceKey });
    open.push(overGlobal.client);
    expect(overGlobal.refused, 'global cap 4 over both processes').to.equal(1013);

    await s2.client.close(); // a slot freed on API 2 is usable on API 1 (released as the socket closes)
    const again = await connectWhenFreed(a!, { apiKey: capKey });
    open.push(again.client, ...again.refusedClients);
    expect(again.refused, `still refused ${again.waitedMs} ms after the close`).to.equal(null);
  });

  it('an ephemeral key in use on API 1 is refused with 4009 on API 2 while its session lives, accepted after', async () => {
    const [a, b] = cluster.apis;
    const minted = await postJson(`${a!.url}/v1/realtime/client_secrets`, {}, ephKey);
    const secret = ((await minted.json()) as { value: string }).value;
    expect(secret).to.match(/^svc-eph-/);
    const first = await connectRealtime(a!, { clientSecret: secret });
    open.push(first.client);
    expect(first.refused).to.equal(null);
    const dup = await connectRealtime(b!, { clientSecret: secret });
    open.push(dup.client);
    expect(dup.refused).to.equal(4009);
    await first.client.close();
    const later = await connectWhenFreed(b!, { clientSecret: secret });
    open.push(later.client, ...later.refusedClients);
    expect(later.refused, `free once the first session ended (still refused ${later.waitedMs} ms after)`).to.equal(null);
  });

  it('the slots of an API process killed with -9 are free again within the lease time; the other process serves on', async () => {
    const [a, b] = cluster.apis;
    const s1 = await connectRealtime(b!, { apiKey: capKey });
    const s2 = await connectRealtime(b!, { apiKey: capKey });
    open.push(s1.client, s2.client);
    expect([s1.refused, s2.refused]).to.deep.equal([null, null]);
    b!.kill('SIGKILL');
    await b!.exited();
    const started = Date.now();
    const refused = await connectRealtime(a!, { apiKey: capKey });
    open.push(refused.client);
    expect(refused.refused, 'the dead process still holds its leases for a moment').to.equal(1013);
    let admitted: number | null = 1013;
    while (admitted !== null && Date.now() - started < LEASE_MS * 4) {
      await sleep(200);
      const attempt = await connectRealtime(a!, { apiKey: capKey });
      open.push(attempt.client);
      admitted = attempt.refused;
    }
    expect(admitted, failWithLogs('admitted again after the dead leases expired')).to.equal(null);
    expect(Date.now() - started).to.be.below(LEASE_MS * 4);
  });
});
