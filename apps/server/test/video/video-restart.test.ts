import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJson, json } from '../helpers/http.js';
import { startTestServer } from '../helpers/test-server.js';
import { childProcesses, createVideo, dataUri, pollVideo, probeMp4, samplePhoto, TEN_SECONDS } from './video-helpers.js';

describe('video jobs survive a restart (real server, same data directory)', function () {
  this.timeout(240_000);

  it('a server stopped mid-render leaves no ffmpeg behind, and the next start completes the job', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-video-restart-'));
    try {
      let server = await startTestServer({ dataDir });
      const key = server.apiKey;
      const created = await json(
        await createVideo(server.baseUrl, key, { ref_image: dataUri(samplePhoto(1), 'image/jpeg'), input_tts: { input: `${TEN_SECONDS} ${TEN_SECONDS}` } }),
      );
      expect(created.status).to.equal(200);
      const id = created.body.id;
      // Wait until it is rendering and has encoded some frames.
      for (let i = 0; i < 600; i++) {
        const v = (await getJson(`${server.baseUrl}/v1/videos/${id}`, key)).body;
        if (v.status === 'in_progress' && v.progress >= 5) break;
        expect(v.status).to.not.equal('completed', 'the render finished before the restart could interrupt it');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await childProcesses()).some((p) => p.includes('ffmpeg'))).to.equal(true, 'ffmpeg runs during the render');
      await server.close();
      expect(await childProcesses()).to.deep.equal([], 'no ffmpeg or render process outlives the stopped server');

      server = await startTestServer({ dataDir });
      try {
        // The API key is stored in the same database, so the first key still works.
        const seen = await pollVideo(server.baseUrl, key, id, 180_000);
        const done = seen.at(-1);
        expect(done).to.include({ status: 'completed', progress: 100, error: null });
        const content = await fetch(`${server.baseUrl}/v1/videos/${id}/content`, { headers: { Authorization: `Bearer ${key}` } });
        const probe = await probeMp4(new Uint8Array(await content.arrayBuffer()));
        expect(probe.audioSeconds).to.be.closeTo(Number(done.seconds), 0.15);
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
