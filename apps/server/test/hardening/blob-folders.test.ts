import { expect } from 'chai';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { json } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createVideo, dataUri, pollVideo, samplePhoto } from '../video/video-helpers.js';
import { call, REFERENCE_TEXT, registerJson, speechBytes } from '../voices/voice-helpers.js';

/** Every folder under `dir`, relative to it (files are not listed). */
function folders(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [`${prefix}${e.name}`, ...folders(join(dir, e.name), `${prefix}${e.name}/`)]);
}

/** Issue 17, defect 9: deleting a video (or a voice) leaves no empty blob folder behind. */
describe('hardening: deletes leave no empty blob folders (real server, filesystem blob store)', function () {
  this.timeout(180_000);
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => t?.close());

  it('DELETE /v1/videos/{id} removes the folder of the video and of its key once it is empty', async () => {
    const key = await t.createApiKey('video-folders');
    const created = await json(
      await createVideo(t.baseUrl, key, { ref_image: dataUri(samplePhoto(1), 'image/jpeg'), input_tts: { input: 'Hi.' } }),
    );
    expect(created.status).to.equal(200, JSON.stringify(created.body));
    const id = created.body.id as string;
    expect((await pollVideo(t.baseUrl, key, id)).at(-1)).to.include({ status: 'completed' });
    const blobs = join(t.dataDir, 'blobs');
    expect(folders(blobs).some((f) => f.endsWith(`/${id}`))).to.equal(true, 'the video has its folder while it exists');
    expect((await call(t, 'DELETE', `/v1/videos/${id}`, key)).status).to.equal(200);
    const left = folders(blobs).filter((f) => f.startsWith('videos/'));
    expect(
      left.filter((f) => f.includes(id)),
      'the folder of the deleted video',
    ).to.deep.equal([]);
    // The key has no other video: its folder went with the last one.
    for (const folder of left) expect(readdirSync(join(blobs, folder)), `${folder} is empty`).to.not.deep.equal([]);
  });

  it('DELETE /v1/audio/voices/{id} leaves no empty folder either', async () => {
    const key = await t.createApiKey('voice-folders');
    const wav = await speechBytes(t, key, { input: REFERENCE_TEXT, response_format: 'wav' });
    const registered = await registerJson(t, key, { ref_audio: wav.toString('base64'), ref_text: REFERENCE_TEXT });
    expect(registered.status).to.equal(200, JSON.stringify(registered.body));
    expect((await call(t, 'DELETE', `/v1/audio/voices/${registered.body.voice}`, key)).status).to.equal(200);
    const blobs = join(t.dataDir, 'blobs');
    const left = folders(blobs).filter((f) => f.startsWith('voices/'));
    for (const folder of left) expect(readdirSync(join(blobs, folder)), `${folder} is empty`).to.not.deep.equal([]);
  });
});
