import { expect } from 'chai';
import type { StageMark } from '@svc/core';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { getJson, postJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { childProcesses, dataUri, pollVideo, probeMp4, samplePhoto, TEN_SECONDS, topLevelBoxes } from './video-helpers.js';

describe('POST /v1/videos/stream (real server)', function () {
  this.timeout(180_000);
  let server: TestServer;
  const photo = dataUri(samplePhoto(1), 'image/jpeg');

  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it('sends the first fragment early, the bytes form a valid fMP4, and the same video is stored', async () => {
    const started = performance.now();
    const res = await postJson(
      `${server.baseUrl}/v1/videos/stream`,
      { ref_image: photo, input_tts: { input: TEN_SECONDS } },
      server.apiKey,
    );
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('video/mp4');
    const id = res.headers.get('x-video-id')!;
    expect(id).to.match(/^video_/);
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    let firstFragmentMs = -1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      if (firstFragmentMs < 0 && topLevelBoxes(Buffer.concat(chunks)).includes('moof')) firstFragmentMs = performance.now() - started;
    }
    const totalMs = performance.now() - started;
    const bytes = Buffer.concat(chunks);
    const boxes = topLevelBoxes(bytes);
    expect(boxes.slice(0, 2)).to.deep.equal(['ftyp', 'moov']);
    expect(boxes.filter((b) => b === 'moof').length).to.be.greaterThan(3, 'about one fragment a second');
    console.log(`      stream: first fragment after ${firstFragmentMs.toFixed(0)} ms, whole ${(totalMs / 1000).toFixed(1)} s`);
    // The 1.5 s target is measured by the bench (`npm run bench -- video`); on two shared cores the
    // suite asserts what must always hold: the first fragment leaves long before the render ends.
    expect(firstFragmentMs)
      .to.be.greaterThan(0)
      .and.lessThan(totalMs * 0.75);

    const probe = await probeMp4(bytes);
    expect(probe).to.include({ width: 640, height: 640 });
    const record = (await pollVideo(server.baseUrl, server.apiKey, id)).at(-1);
    expect(record.status).to.equal('completed');
    expect(probe.frames).to.be.within(Math.ceil(Number(record.seconds) * 25) - 1, Math.ceil(Number(record.seconds) * 25) + 1);
    const stored = await fetch(`${server.baseUrl}/v1/videos/${id}/content`, { headers: { Authorization: `Bearer ${server.apiKey}` } });
    expect(Buffer.from(await stored.arrayBuffer()).equals(bytes)).to.equal(true, 'the stored MP4 is the streamed bytes');
  });

  it('a client that disconnects after the first bytes does not stop the stored video from completing', async () => {
    const abort = new AbortController();
    const res = await postJson(
      `${server.baseUrl}/v1/videos/stream`,
      { ref_image: photo, input_tts: { input: TEN_SECONDS } },
      server.apiKey,
      { signal: abort.signal },
    );
    const id = res.headers.get('x-video-id')!;
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    const record = (await pollVideo(server.baseUrl, server.apiKey, id)).at(-1);
    expect(record).to.include({ status: 'completed', progress: 100 });
    const stored = await fetch(`${server.baseUrl}/v1/videos/${id}/content`, { headers: { Authorization: `Bearer ${server.apiKey}` } });
    expect((await probeMp4(new Uint8Array(await stored.arrayBuffer()))).frames).to.be.greaterThan(150);
    expect((await getJson(`${server.baseUrl}/v1/videos/${id}`, server.apiKey)).body.status).to.equal('completed');
  });

  it('SVC_VIDEO_MAX_STREAMS: one stream over the cap is a 429 concurrency_limit_exceeded (REST shape, Retry-After) before any work; the slot frees when the stream ends', async () => {
    const capped = await startTestServer({ env: { SVC_VIDEO_MAX_STREAMS: '1' } });
    try {
      const stream = capped.server.services.get(SERVER_TOKENS.VideoUseCases).stream;
      const timelines: Array<readonly StageMark[]> = [];
      stream.watchTimelines((_id, stages) => timelines.push(stages));
      const first = await postJson(
        `${capped.baseUrl}/v1/videos/stream`,
        { ref_image: photo, input_tts: { input: 'One stream at a time, please.' } },
        capped.apiKey,
      );
      expect(first.status).to.equal(200);
      const started = performance.now();
      const refused = await postJson(
        `${capped.baseUrl}/v1/videos/stream`,
        { ref_image: photo, input_tts: { input: 'And me?' } },
        capped.apiKey,
      );
      const refusedMs = performance.now() - started;
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
      const body = (await refused.json()) as any;
      expect(body.error).to.include({ type: 'concurrency_limit_exceeded', code: 'concurrency_limit_exceeded', param: null });
      expect(body.error.message).to.match(/POST \/v1\/videos/);
      expect(refusedMs, 'refused before any decoding or detection').to.be.below(1000);
      expect((await getJson(`${capped.baseUrl}/v1/videos`, capped.apiKey)).body.data).to.have.length(
        1,
        'nothing stored for the refused stream',
      );
      await first.arrayBuffer();
      const id = first.headers.get('x-video-id')!;
      expect((await pollVideo(capped.baseUrl, capped.apiKey, id)).at(-1).status).to.equal('completed');
      // the slot is free again: the next request is checked (here refused for its size, not for the cap)
      let next = 429;
      for (let i = 0; i < 50 && next === 429; i++) {
        next = (
          await postJson(`${capped.baseUrl}/v1/videos/stream`, { ref_image: photo, size: '1x1', input_tts: { input: 'Hi' } }, capped.apiKey)
        ).status;
        if (next === 429) await new Promise((r) => setTimeout(r, 20));
      }
      expect(next).to.equal(400);
      // the stream's timeline: every stage, the detector's own steps included
      expect(timelines).to.have.length(1);
      const stages = timelines[0]!.map((m) => m.stage);
      for (const stage of [
        'body parsed',
        'image checked',
        'face prepared',
        'speech ready',
        'job stored',
        'render started',
        'encoder started',
        'first frame',
        'first fragment out',
        'face.decode',
        'face.detect',
      ]) {
        expect(stages, stage).to.include(stage);
      }
      const out = timelines[0]!.find((m) => m.stage === 'first fragment out')!;
      expect(out.atMs).to.be.above(0);
    } finally {
      await capped.close();
    }
  });
});

describe('the standby encoder in a real server', function () {
  this.timeout(180_000);

  it("after a first stream one ffmpeg waits for the next, the next stream takes it (encoder started at once) and leaves a new one; the server's close kills it", async () => {
    const server = await startTestServer();
    const ffmpegs = async () => (await childProcesses()).filter((p) => p.includes('ffmpeg'));
    try {
      expect(await ffmpegs(), 'no ffmpeg before the first video').to.deep.equal([]);
      const stream = async (sample: number) => {
        const body = { ref_image: dataUri(samplePhoto(sample), 'image/jpeg'), input_tts: { input: 'A short one.' } };
        const res = await postJson(`${server.baseUrl}/v1/videos/stream`, body, server.apiKey);
        expect(res.status).to.equal(200);
        await res.arrayBuffer();
      };
      await stream(2);
      await until(async () => (await ffmpegs()).length === 1);
      const standby = (await ffmpegs())[0]!;
      const timelines: Array<readonly StageMark[]> = [];
      const unwatch = server.server.services
        .get(SERVER_TOKENS.VideoUseCases)
        .stream.watchTimelines((_id, stages) => timelines.push(stages));
      await stream(3); // a photo not seen: the face takes a while
      unwatch();
      const marks = Object.fromEntries(timelines[0]!.filter((m) => m.atMs !== undefined).map((m) => [m.stage, m.atMs!]));
      expect(marks['encoder started'], 'taken with the checks, before the face or the speech is ready').to.be.at.most(
        Math.min(marks['face prepared']!, marks['speech ready']!),
      );
      await until(async () => {
        const now = await ffmpegs();
        return now.length === 1 && now[0] !== standby;
      });
    } finally {
      await server.close();
    }
    expect(await ffmpegs(), 'no ffmpeg outlives the server').to.deep.equal([]);
  });
});

async function until(condition: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
