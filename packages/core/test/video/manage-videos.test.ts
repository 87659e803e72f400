import { expect } from 'chai';
import { ServiceError } from '../../src/shared/errors.js';
import { videoBlobKeys } from '../../src/video/video-blobs.js';
import { base64, pngBytes, speechBytes } from './video-fakes.js';
import { alice, bob, HOUR, videoWorld } from './video-world.js';

const face = base64(pngBytes(800, 600));
const never = new AbortController().signal;
const identifierOf = (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: ServiceError) => e.identifier,
  );

describe('Get, content, list, delete and retention of videos', () => {
  it('another key sees the same 404 as for an unknown id, everywhere', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    await w.render.execute(job.id, never);
    expect(await identifierOf(w.get.execute(bob, job.id))).to.equal('video_not_found');
    expect(await identifierOf(w.get.execute(alice, 'video_nope'))).to.equal('video_not_found');
    expect(await identifierOf(w.content.execute(bob, job.id, 'video'))).to.equal('video_not_found');
    expect(await identifierOf(w.remove.execute(bob, job.id))).to.equal('video_not_found');
    expect((await w.list.execute(bob)).videos).to.deep.equal([]);
    expect(await identifierOf(w.list.execute(bob, { after: job.id }))).to.equal('invalid_parameter');
    expect((await w.get.execute(alice, job.id)).status).to.equal('completed');
  });

  it('content is a 404 before completion and refuses another variant', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    expect(await identifierOf(w.content.execute(alice, job.id, 'video'))).to.equal('video_not_ready');
    expect(await identifierOf(w.content.execute(alice, job.id, 'thumbnail'))).to.equal('invalid_video_variant');
  });

  it('content of a failed video is the same 404, saying it failed (polling would never help)', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    const queued = await w.content.execute(alice, job.id, 'video').catch((e: ServiceError) => e);
    expect((queued as ServiceError).message).to.contain('not completed yet; poll');
    w.renderer.failAfterFrames = 5;
    await w.render.execute(job.id, never);
    expect((await w.get.execute(alice, job.id)).status).to.equal('failed');
    const err = (await w.content.execute(alice, job.id, 'video').catch((e: ServiceError) => e)) as ServiceError;
    expect(err.identifier).to.equal('video_not_ready');
    expect(err.message).to.equal(`Video '${job.id}' failed, so it has no content; the 'error' field of GET /v1/videos/${job.id} says why.`);
    expect(err.message).not.to.contain('poll');
  });

  it('lists newest first in pages', async () => {
    const w = videoWorld();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(0.5)) })).id);
      w.clock.advance(1000);
    }
    const first = await w.list.execute(alice, { limit: 2 });
    expect(first.videos.map((v) => v.id)).to.deep.equal([ids[4], ids[3]]);
    expect(first.hasMore).to.equal(true);
    const rest = await w.list.execute(alice, { limit: 10, after: ids[3] });
    expect(rest.videos.map((v) => v.id)).to.deep.equal([ids[2], ids[1], ids[0]]);
    expect(rest.hasMore).to.equal(false);
    expect(await identifierOf(w.list.execute(alice, { limit: 0 }))).to.equal('invalid_parameter');
  });

  it('delete removes the record and every file', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    await w.render.execute(job.id, never);
    expect(w.blobs.blobs.has(videoBlobKeys(job).video)).to.equal(true);
    expect(await w.remove.execute(alice, job.id)).to.deep.equal({ id: job.id });
    expect(w.jobs.rows.size).to.equal(0);
    expect(w.blobs.blobs.size).to.equal(0);
    expect(await identifierOf(w.remove.execute(alice, job.id))).to.equal('video_not_found');
  });

  it('the retention sweep removes finished videos past their expiry, never running ones', async () => {
    const w = videoWorld();
    const old = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    await w.render.execute(old.id, never);
    const waiting = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    w.clock.advance(23 * HOUR);
    expect(await w.sweep.execute()).to.equal(0);
    w.clock.advance(2 * HOUR);
    expect(await w.sweep.execute()).to.equal(1);
    expect(await w.jobs.get(old.id)).to.equal(null);
    expect([...w.blobs.blobs.keys()].some((k) => k.includes(old.id))).to.equal(false);
    expect((await w.jobs.get(waiting.id))!.status).to.equal('queued');
  });
});
