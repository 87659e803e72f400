import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SERVER_TOKENS } from '../../src/tokens.js';
import { json } from '../helpers/http.js';
import { startTestServer } from '../helpers/test-server.js';
import { createVideo, dataUri, pollVideo, samplePhoto } from '../video/video-helpers.js';
import { b64, registerJson, REFERENCE_TEXT, speechBytes } from '../voices/voice-helpers.js';

const OLD = new Date(Date.now() - 2 * 86_400_000);

/** Every file under `root`, as blob keys. */
function blobKeys(root: string, dir = ''): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const key = dir ? `${dir}/${e.name}` : e.name;
    return e.isDirectory() ? blobKeys(root, key) : [key];
  });
}

describe('orphaned blobs are swept (real server, real files)', function () {
  this.timeout(180_000);

  it('removes old blobs no row refers to (a dead video, a lost voice upload, a half-written file); keeps live and young ones', async () => {
    const t = await startTestServer({ env: { SVC_BLOB_ORPHAN_GRACE_HOURS: '1' } });
    try {
      const blobs = join(t.dataDir, 'blobs');
      const reference = await speechBytes(t, t.apiKey, { input: REFERENCE_TEXT, response_format: 'wav' });
      const voice = await registerJson(t, t.apiKey, { ref_audio: b64(reference) });
      expect(voice.status).to.equal(200);
      const created = await json(
        await createVideo(t.baseUrl, t.apiKey, {
          ref_image: dataUri(samplePhoto(1), 'image/jpeg'),
          input_tts: { input: 'A short video.' },
        }),
      );
      expect((await pollVideo(t.baseUrl, t.apiKey, created.body.id)).at(-1).status).to.equal('completed');

      const live = blobKeys(blobs);
      const videoDir = dirname(live.find((k) => k.endsWith('/video.mp4'))!);
      const keyDir = dirname(videoDir).split('/')[1];
      const orphans = [
        `videos/${keyDir}/video_0000dead/ref_image`,
        `${videoDir}/video.mp4.1a2b3c.tmp`,
        `voices/${keyDir}/voice_gone/ref_lost`,
      ];
      const young = `videos/${keyDir}/video_0000young/ref_image`;
      for (const key of [...orphans, young]) {
        mkdirSync(dirname(join(blobs, key)), { recursive: true });
        writeFileSync(join(blobs, key), 'x');
      }
      // Live blobs are made old too: only their rows keep them.
      for (const key of [...live, ...orphans]) utimesSync(join(blobs, key), OLD, OLD);

      const video = t.server.services.get(SERVER_TOKENS.VideoUseCases);
      expect(await video.orphans!.execute()).to.equal(orphans.length);
      expect(blobKeys(blobs).sort()).to.deep.equal([...live, young].sort());
      for (const key of orphans) expect(existsSync(join(blobs, key)), key).to.equal(false);

      const content = await fetch(`${t.baseUrl}/v1/videos/${created.body.id}/content`, {
        headers: { Authorization: `Bearer ${t.apiKey}` },
      });
      expect(content.status).to.equal(200);
      const speech = await fetch(`${t.baseUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ input: 'Still here.', voice: voice.body.voice, response_format: 'wav' }),
      });
      expect(speech.status, 'the registered voice still has its reference audio').to.equal(200);
    } finally {
      await t.close();
    }
  });
});
