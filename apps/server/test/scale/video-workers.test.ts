import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getJson, json, sleep } from '../helpers/http.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { freshPostgresSchema, freshRedisPrefix } from './isolated-stack.js';
import { describeWithScaleStack, scaleRedisUrl } from './scale-stack.js';
import {
  createVideo,
  dataUri,
  pollVideo,
  probeMp4,
  samplePhoto,
  TEN_SECONDS,
  topLevelBoxes,
  wentBackwards,
} from '../video/video-helpers.js';

/**
 * About 20 s of speech: a render long enough to interrupt (progress is the share of frames encoded,
 * so 5% is seen well before the end), and short, since a takeover renders it again from the start.
 */
const LONG_INPUT = `${TEN_SECONDS} ${TEN_SECONDS}`;
const LOCK_MS = 2_000;
/** Its own s3rver (scripts/start-s3.sh) on a port of its own, for the blobs every process shares. */
const S3_PORT = String(20000 + Math.floor(Math.random() * 20000));

describeWithScaleStack('video jobs across processes: two APIs, two workers', function () {
  this.timeout(300_000);
  let db: ReturnType<typeof freshPostgresSchema>;
  let s3Endpoint: string;
  let s3Prefix: string;
  let redisPrefix: string;
  let api: ServerProcess;
  /** A second API process on the same database, Redis and bucket: it must see and serve what API 1 created. */
  let api2: ServerProcess;
  let workers: ServerProcess[] = [];
  const key = `sk-workers-${Date.now()}`;

  const envOf = (role: string, prefix: string) => ({
    SVC_ROLE: role,
    SVC_DATABASE_URL: db.url,
    SVC_REDIS_URL: scaleRedisUrl!,
    SVC_REDIS_KEY_PREFIX: prefix,
    SVC_JOB_LOCK_MS: String(LOCK_MS),
    SVC_VIDEO_MAX_ATTEMPTS: '3',
    // No shared directory: each process has its own data directory, the blobs are in the bucket.
    SVC_BLOB_STORE: 's3',
    SVC_S3_ENDPOINT: s3Endpoint,
    SVC_S3_BUCKET: 'svc',
    SVC_S3_ACCESS_KEY_ID: 'S3RVER',
    SVC_S3_SECRET_ACCESS_KEY: 'S3RVER',
    SVC_S3_KEY_PREFIX: s3Prefix,
  });
  const start = (role: string, prefix: string, extra: Record<string, string> = {}) =>
    startServerProcess({ apiKey: key, env: { ...envOf(role, prefix), ...extra }, readyTimeoutMs: 120_000 });

  // One schema, queue and bucket prefix and the two APIs for the whole file (the tests' videos are
  // apart by id, and every test waits for its video to end); the workers too, where a test left
  // them running (see twoWorkers).
  before(async () => {
    s3Endpoint = execFileSync('bash', ['scripts/start-s3.sh', S3_PORT, `/tmp/svc-s3-test-${S3_PORT}`], { encoding: 'utf8' }).trim();
    db = freshPostgresSchema();
    redisPrefix = freshRedisPrefix();
    s3Prefix = `${redisPrefix.replace(/:$/, '')}/`;
    // The API first: it migrates the new schema (SVC_MIGRATE_ON_START defaults to on).
    api = await start('api', redisPrefix);
    api2 = await start('api', redisPrefix);
  });
  after(async () => {
    await Promise.all([...workers, api, api2].map((p) => p?.stop(5_000)));
    db?.drop();
    process.kill(Number(readFileSync(`/tmp/svc-s3-${S3_PORT}.pid`, 'utf8')));
    execFileSync('rm', ['-rf', `/tmp/svc-s3-test-${S3_PORT}`]);
  });

  /** The settings each worker was started with (its `extra` environment). */
  const settingsOf = new Map<ServerProcess, string>();
  /**
   * Two live workers with `extra` settings. A worker the last test left running with the same
   * settings is kept: a start loads every engine (CPU the machine's other tests need), and a test's
   * job is apart from the others by id and ended before the test did. A killed, stopped or
   * differently set one is replaced by a fresh one.
   */
  const twoWorkers = async (extra: Record<string, string> = {}) => {
    const settings = JSON.stringify(extra);
    const kept = workers.filter((w) => w.alive() && settingsOf.get(w) === settings);
    await Promise.all(workers.filter((w) => !kept.includes(w)).map((w) => w.stop(5_000)));
    const started = await Promise.all(Array.from({ length: 2 - kept.length }, () => start('worker', redisPrefix, extra)));
    for (const w of started) settingsOf.set(w, settings);
    workers = [...kept, ...started];
  };
  afterEach(async function () {
    // A failed test may leave a render running: the next test starts from fresh workers.
    if (this.currentTest?.state === 'failed') await Promise.all(workers.map((p) => p.stop(5_000)));
  });

  const create = async (input: string) => {
    const res = await json(await createVideo(api.url, key, { ref_image: dataUri(samplePhoto(1), 'image/jpeg'), input_tts: { input } }));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  /** The worker whose log shows it started the job (its `delivery`-th start), once it has. */
  const rendererOf = async (id: string, starts = 1): Promise<ServerProcess> => {
    for (let i = 0; i < 600; i++) {
      const w = workers.find(
        (p) =>
          p
            .logs()
            .split('\n')
            .filter((l) => l.includes('"job started"') && l.includes(id)).length >= starts,
      );
      if (w) return w;
      await sleep(50);
    }
    throw new Error(`no worker started ${id}\n${workers.map((w) => w.tail(10)).join('\n---\n')}`);
  };
  const waitRendering = async (id: string, minProgress: number) => {
    // generous: a loaded machine synthesizes the speech and prepares the face before the first frame
    for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
      const v = (await getJson(`${api.url}/v1/videos/${id}`, key)).body;
      expect(v.status).to.not.equal('completed', 'the render finished before the test could interrupt it');
      if (v.status === 'in_progress' && v.progress >= minProgress) return v;
      await sleep(50);
    }
    throw new Error('the render never started');
  };

  const download = async (base: string, id: string) => {
    const res = await fetch(`${base}/v1/videos/${id}/content`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status, base).to.equal(200);
    return new Uint8Array(await res.arrayBuffer());
  };

  it('a video created on API 1 is rendered by a worker, its progress seen on both APIs, downloadable from API 2; the APIs never render; workers serve only health and metrics', async () => {
    await twoWorkers();
    const id = await create(TEN_SECONDS);
    // Both API processes watched at once, each from a status that must only move forward.
    const [seen1, seen2] = await Promise.all([pollVideo(api.url, key, id, 180_000), pollVideo(api2.url, key, id, 180_000)]);
    for (const [name, seen] of [
      ['API 1', seen1],
      ['API 2', seen2],
    ] as const) {
      const done = seen.at(-1);
      expect(done, `${name}: ${JSON.stringify(done)}`).to.include({ id, status: 'completed', progress: 100, error: null });
      expect(seen.some((v) => v.status === 'in_progress' && v.progress > 0 && v.progress < 100)).to.equal(
        true,
        `progress is visible on ${name} while a worker renders`,
      );
      const progress = seen.map((v) => v.progress as number);
      expect(
        progress.every((p, i) => i === 0 || p >= progress[i - 1]!),
        `${name} progress went back: ${progress.join(',')}`,
      ).to.equal(true);
    }
    const done = seen2.at(-1);
    const fromApi2 = await download(api2.url, id);
    const fromApi1 = await download(api.url, id);
    expect(topLevelBoxes(fromApi2)[0]).to.equal('ftyp');
    expect(Buffer.from(fromApi2).equals(Buffer.from(fromApi1))).to.equal(true, 'API 2 serves the very bytes API 1 serves');
    const probe = await probeMp4(fromApi2);
    expect(probe.audioSeconds).to.be.closeTo(Number(done.seconds), 0.15);
    const renderer = await rendererOf(id);
    expect(renderer.logs()).to.match(/"video completed"/);
    for (const a of [api, api2]) expect(a.logs()).to.not.match(/"video completed"|"job started"/);

    const worker = workers[0]!;
    expect((await fetch(`${worker.url}/healthz`)).status).to.equal(200);
    const ready = await fetch(`${worker.url}/readyz`);
    expect(ready.status).to.equal(200);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks).to.include({
      database: 'ok',
      redis: 'ok',
      blob_store: 'ok',
    });
    expect((await fetch(`${worker.url}/metrics`, { headers: { Authorization: `Bearer ${key}` } })).status).to.equal(200);
    for (const path of ['/v1/videos', '/v1/audio/presets', '/v1/openapi.json']) {
      expect((await fetch(`${worker.url}${path}`, { headers: { Authorization: `Bearer ${key}` } })).status, path).to.equal(404);
    }
    const ws = await fetch(`${worker.url}/v1/realtime`, {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    }).catch(() => null);
    expect(ws?.status ?? 0).to.not.equal(101, 'a worker accepts no realtime session');
  });

  it('kill -9 of the rendering worker: the other worker takes the job over and completes it, in_progress throughout, progress never lower', async () => {
    await twoWorkers();
    const id = await create(LONG_INPUT);
    const victim = await rendererOf(id);
    const before = await waitRendering(id, 5);
    // Watched from before the kill to the end: the takeover must not pass through queued or report less.
    const watched = pollVideo(api.url, key, id, 240_000);
    victim.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited();
    const survivor = workers.find((w) => w !== victim)!;
    for (let i = 0; i < 1200 && !survivor.logs().includes(id); i++) await sleep(25);
    expect(survivor.logs(), survivor.tail(20)).to.include(id);
    const takeoverMs = Date.now() - killedAt;
    const seen = [before, ...(await watched)];
    const done = seen.at(-1);
    expect(done, JSON.stringify(done)).to.include({ status: 'completed', progress: 100, error: null });
    expect(wentBackwards(seen)).to.equal(null);
    expect(survivor.logs()).to.match(/video taken over from a worker that stopped during its render/);
    process.stdout.write(
      `      (killed at ${before.progress}%, taken over after ${takeoverMs} ms, lock ${LOCK_MS} ms; completed ${Date.now() - killedAt} ms after the kill)\n`,
    );
    expect(takeoverMs).to.be.below(4 * LOCK_MS + 5_000);
    const content = await fetch(`${api.url}/v1/videos/${id}/content`, { headers: { Authorization: `Bearer ${key}` } });
    expect((await probeMp4(new Uint8Array(await content.arrayBuffer()))).audioSeconds).to.be.closeTo(Number(done.seconds), 0.15);
  });

  it('SIGTERM on the rendering worker: it exits 0 at once and its job goes straight to the other worker, never backwards', async () => {
    await twoWorkers();
    const id = await create(LONG_INPUT);
    const victim = await rendererOf(id);
    const before = await waitRendering(id, 5);
    const watched = pollVideo(api.url, key, id, 240_000);
    const stoppedAt = Date.now();
    victim.kill('SIGTERM');
    const status = await victim.exited(30_000);
    const shutdownMs = Date.now() - stoppedAt;
    expect(status).to.deep.equal({ code: 0, signal: null });
    const survivor = workers.find((w) => w !== victim)!;
    for (let i = 0; i < 600 && !survivor.logs().includes(id); i++) await sleep(25);
    const takeoverMs = Date.now() - stoppedAt;
    expect(survivor.logs()).to.include(id);
    process.stdout.write(`      (worker shutdown ${shutdownMs} ms; job on the other worker ${takeoverMs} ms after SIGTERM)\n`);
    expect(takeoverMs).to.be.below(LOCK_MS + shutdownMs, 'returned to the queue, not recovered as stalled');
    const seen = [before, ...(await watched)];
    expect(seen.at(-1), JSON.stringify(seen.at(-1))).to.include({ status: 'completed', progress: 100, error: null });
    expect(wentBackwards(seen)).to.equal(null);
  });

  it('kill -9 with the retry budget spent: the job ends failed with a message saying so, never stuck in_progress', async () => {
    // Workers allowed one render per video.
    await twoWorkers({ SVC_VIDEO_MAX_ATTEMPTS: '1' });
    const id = await create(LONG_INPUT);
    const victim = await rendererOf(id);
    await waitRendering(id, 5);
    victim.kill('SIGKILL');
    const killedAt = Date.now();
    const done = (await pollVideo(api.url, key, id, 120_000)).at(-1);
    expect(done.status, JSON.stringify(done)).to.equal('failed');
    expect(done.error).to.match(/stopped 1 times while rendering this video, so it was given up; create it again/);
    process.stdout.write(`      (failed ${Date.now() - killedAt} ms after the kill)\n`);
  });
});
