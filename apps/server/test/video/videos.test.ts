import { expect } from 'chai';
import OpenAI from 'openai';
import { getJson, json, postJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { childProcesses, createVideo, dataUri, pollVideo, probeMp4, samplePhoto } from './video-helpers.js';

const SENTENCE = 'Hello, this is a short test of the talking head video service.';

describe('/v1/videos (real server, real renderer, real ffmpeg)', function () {
  this.timeout(180_000);
  let server: TestServer;
  let otherKey: string;
  const photo = dataUri(samplePhoto(1), 'image/jpeg');

  before(async () => {
    server = await startTestServer();
    otherKey = await server.createApiKey('other');
  });
  after(() => server?.close());

  it('create -> queued -> in_progress with rising progress -> completed, and the MP4 decodes at the right size and length', async () => {
    const created = await json(
      await createVideo(server.baseUrl, server.apiKey, { ref_image: photo, input_tts: { input: SENTENCE }, size: '640x480' }),
    );
    expect(created.status).to.equal(200, JSON.stringify(created.body));
    expect(created.body).to.include({ object: 'video', model: 'svc-avatar', status: 'queued', progress: 0, size: '640x480', error: null });
    expect(created.body.id).to.match(/^video_/);
    const seconds = Number(created.body.seconds);
    expect(seconds).to.be.within(2, 8);

    const early = await fetch(`${server.baseUrl}/v1/videos/${created.body.id}/content`, {
      headers: { Authorization: `Bearer ${server.apiKey}` },
    });
    if (early.status !== 200) {
      expect(early.status).to.equal(404);
      expect(((await early.json()) as any).error).to.include({ type: 'video_not_ready' });
    }

    const seen = await pollVideo(server.baseUrl, server.apiKey, created.body.id);
    const last = seen.at(-1);
    expect(last).to.include({ status: 'completed', progress: 100, error: null });
    expect(last.completed_at).to.be.a('number');
    const progress = seen.map((v) => v.progress);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).to.be.at.least(progress[i - 1]);
    expect(seen.some((v) => v.status === 'in_progress' && v.progress > 0 && v.progress < 100)).to.equal(
      true,
      `progress seen: ${progress.join(',')}`,
    );
    // the job's ffmpeg has ended; at most the encoder's standby waits for the next video (killed at close: video-restart.test.ts)
    expect((await childProcesses()).filter((p) => p.includes('ffmpeg')).length).to.be.at.most(1, 'no ffmpeg outlives its job');

    const res = await fetch(`${server.baseUrl}/v1/videos/${created.body.id}/content?variant=video`, {
      headers: { Authorization: `Bearer ${server.apiKey}` },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('video/mp4');
    const probe = await probeMp4(new Uint8Array(await res.arrayBuffer()));
    expect(probe).to.include({ width: 640, height: 480, videoCodec: 'h264' });
    expect(probe.frames).to.be.within(Math.ceil(seconds * 25) - 1, Math.ceil(seconds * 25) + 1);
    expect(probe.audioSeconds).to.be.closeTo(seconds, 0.15);
  });

  it('the official openai SDK retrieves the video and downloads its content unchanged', async () => {
    const created = await json(await createVideo(server.baseUrl, server.apiKey, { ref_image: photo, input_tts: { input: 'Short one.' } }));
    await pollVideo(server.baseUrl, server.apiKey, created.body.id);
    const client = new OpenAI({ apiKey: server.apiKey, baseURL: `${server.baseUrl}/v1` });
    const video = await client.videos.retrieve(created.body.id);
    expect(video).to.include({ id: created.body.id, object: 'video', status: 'completed', progress: 100, size: '640x640' });
    const content = await client.videos.downloadContent(created.body.id);
    expect(content.headers.get('content-type')).to.equal('video/mp4');
    const probe = await probeMp4(new Uint8Array(await content.arrayBuffer()));
    expect(probe).to.include({ width: 640, height: 640 });
    let notFound: unknown = null;
    await client.videos.retrieve('video_unknown').catch((e) => (notFound = e));
    expect(notFound).to.be.instanceOf(OpenAI.NotFoundError);
  });

  it("videos belong to their key: another key's video is the same 404 as an unknown one, and is not listed", async () => {
    const created = await json(await createVideo(server.baseUrl, server.apiKey, { ref_image: photo, input_tts: { input: 'Mine.' } }));
    await pollVideo(server.baseUrl, server.apiKey, created.body.id);
    const id = created.body.id;
    const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
    const foreign = await getJson(`${server.baseUrl}/v1/videos/${id}`, otherKey);
    const unknown = await getJson(`${server.baseUrl}/v1/videos/video_nope`, otherKey);
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.type).to.equal('video_not_found');
    expect(unknown.body.error.type).to.equal(foreign.body.error.type);
    expect((await fetch(`${server.baseUrl}/v1/videos/${id}/content`, { headers: auth(otherKey) })).status).to.equal(404);
    expect((await fetch(`${server.baseUrl}/v1/videos/${id}`, { method: 'DELETE', headers: auth(otherKey) })).status).to.equal(404);
    expect((await getJson(`${server.baseUrl}/v1/videos`, otherKey)).body.data.map((v: any) => v.id)).not.to.include(id);
    expect((await fetch(`${server.baseUrl}/v1/videos`, {})).status).to.equal(401);
    expect((await getJson(`${server.baseUrl}/v1/videos/${id}`, server.apiKey)).body.status).to.equal('completed');
  });

  it('lists newest first in pages, and DELETE removes the record and its MP4', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await json(await createVideo(server.baseUrl, otherKey, { ref_image: photo, input_tts: { input: `Number ${i}.` } }))).body.id,
      );
    const page = await getJson(`${server.baseUrl}/v1/videos?limit=2`, otherKey);
    expect(page.body).to.include({ object: 'list', has_more: true, first_id: ids[2], last_id: ids[1] });
    const rest = await getJson(`${server.baseUrl}/v1/videos?limit=2&after=${ids[1]}`, otherKey);
    expect(rest.body.data.map((v: any) => v.id)).to.deep.equal([ids[0]]);
    expect(rest.body.has_more).to.equal(false);
    for (const id of ids) await pollVideo(server.baseUrl, otherKey, id);
    const del = await fetch(`${server.baseUrl}/v1/videos/${ids[0]}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${otherKey}` },
    });
    expect(await del.json()).to.deep.equal({ id: ids[0], object: 'video.deleted', deleted: true });
    expect((await getJson(`${server.baseUrl}/v1/videos/${ids[0]}`, otherKey)).status).to.equal(404);
    expect(
      (await fetch(`${server.baseUrl}/v1/videos/${ids[0]}/content`, { headers: { Authorization: `Bearer ${otherKey}` } })).status,
    ).to.equal(404);
  });

  it('multipart: ref_image and input as file parts', async () => {
    const speech = await postJson(
      `${server.baseUrl}/v1/audio/speech`,
      { input: 'Driving audio from a file.', response_format: 'wav' },
      server.apiKey,
    );
    const wav = new Uint8Array(await speech.arrayBuffer());
    const form = new FormData();
    form.append('ref_image', new Blob([samplePhoto(2)]), 'face.bin');
    form.append('input', new Blob([wav]), 'speech.bin');
    form.append('size', '480x640');
    const res = await json(
      await fetch(`${server.baseUrl}/v1/videos`, { method: 'POST', headers: { Authorization: `Bearer ${server.apiKey}` }, body: form }),
    );
    expect(res.status).to.equal(200, JSON.stringify(res.body));
    const done = (await pollVideo(server.baseUrl, server.apiKey, res.body.id)).at(-1);
    expect(done.status).to.equal('completed');
    const content = await fetch(`${server.baseUrl}/v1/videos/${res.body.id}/content`, {
      headers: { Authorization: `Bearer ${server.apiKey}` },
    });
    const probe = await probeMp4(new Uint8Array(await content.arrayBuffer()));
    expect(probe).to.include({ width: 480, height: 640 });

    // input_tts travels as a JSON text field; a malformed one is a REST error.
    const tts = new FormData();
    tts.append('ref_image', new Blob([samplePhoto(3)]), 'x');
    tts.append('input_tts', JSON.stringify({ input: 'From a form field.' }));
    const ok = await json(
      await fetch(`${server.baseUrl}/v1/videos`, { method: 'POST', headers: { Authorization: `Bearer ${server.apiKey}` }, body: tts }),
    );
    expect(ok.status).to.equal(200, JSON.stringify(ok.body));
    expect((await pollVideo(server.baseUrl, server.apiKey, ok.body.id)).at(-1).status).to.equal('completed');
    const bad = new FormData();
    bad.append('ref_image', new Blob([samplePhoto(3)]), 'x');
    bad.append('input_tts', '{not json');
    const refused = await json(
      await fetch(`${server.baseUrl}/v1/videos`, { method: 'POST', headers: { Authorization: `Bearer ${server.apiKey}` }, body: bad }),
    );
    expect(refused.status).to.equal(400);
    expect(refused.body.error.type).to.equal('invalid_json');
  });
});
