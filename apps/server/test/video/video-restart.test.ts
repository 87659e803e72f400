import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJson, json } from '../helpers/http.js';
import { startTestServer } from '../helpers/test-server.js';
import { startServerProcess } from '../helpers/server-process.js';
import { childProcesses, createVideo, dataUri, pollVideo, probeMp4, samplePhoto, TEN_SECONDS, wentBackwards } from './video-helpers.js';

// About 10 s of speech per video: progress is the share of frames encoded, so the 5% and 20% the
// tests wait for come long before the end, and the restarted server renders it again in full.
describe('video jobs survive a restart (real server, same data directory)', function () {
  this.timeout(240_000);

  it('a server stopped mid-render leaves no ffmpeg behind, and the next start completes the job', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-video-restart-'));
    try {
      let server = await startTestServer({ dataDir });
      const key = server.apiKey;
      const created = await json(
        await createVideo(server.baseUrl, key, {
          ref_image: dataUri(samplePhoto(1), 'image/jpeg'),
          input_tts: { input: TEN_SECONDS },
        }),
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

  it('kill -9 mid-render, then a restart: the job stays in_progress and its progress never goes back (issue 17, defect 2)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-video-kill-'));
    const apiKey = `sk-restart-${Date.now()}`;
    try {
      let server = await startServerProcess({ dataDir, apiKey });
      const created = await json(
        await createVideo(server.url, apiKey, {
          ref_image: dataUri(samplePhoto(1), 'image/jpeg'),
          input_tts: { input: TEN_SECONDS },
        }),
      );
      expect(created.status).to.equal(200);
      const id = created.body.id;
      const seen: Array<{ status: string; progress: number }> = [];
      for (let i = 0; i < 1200; i++) {
        const v = (await getJson(`${server.url}/v1/videos/${id}`, apiKey)).body;
        seen.push(v);
        if (v.status === 'in_progress' && v.progress >= 20) break;
        expect(v.status).to.not.equal('completed', 'the render finished before it could be killed');
        await new Promise((r) => setTimeout(r, 50));
      }
      server.kill('SIGKILL');
      await server.exited();
      const killedAt = seen.at(-1)!.progress;
      server = await startServerProcess({ dataDir, apiKey });
      try {
        const after = await pollVideo(server.url, apiKey, id, 180_000);
        seen.push(...after);
        expect(after[0], 'the first answer after the restart').to.include({ status: 'in_progress' });
        expect(after[0]!.progress).to.be.at.least(killedAt);
        expect(after.at(-1)).to.include({ status: 'completed', progress: 100, error: null });
        expect(wentBackwards(seen)).to.equal(null);
        process.stdout.write(
          `      (killed at ${killedAt} %, then ${after
            .map((v) => v.progress)
            .filter((p, i, a) => i === 0 || p !== a[i - 1])
            .join(' -> ')})\n`,
        );
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
