import { expect } from 'chai';
import { getJson, postJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { dataUri, pollVideo, probeMp4, samplePhoto, TEN_SECONDS, topLevelBoxes } from './video-helpers.js';


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
    const res = await postJson(`${server.baseUrl}/v1/videos/stream`, { ref_image: photo, input_tts: { input: TEN_SECONDS } }, server.apiKey);
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
    expect(firstFragmentMs).to.be.greaterThan(0).and.lessThan(totalMs * 0.75);

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
    const res = await postJson(`${server.baseUrl}/v1/videos/stream`, { ref_image: photo, input_tts: { input: TEN_SECONDS } }, server.apiKey, { signal: abort.signal });
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
});
