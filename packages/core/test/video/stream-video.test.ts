import { expect } from 'chai';
import { base64, pngBytes, speechBytes } from './video-fakes.js';
import { StreamVideo } from '../../src/video/stream-video.js';
import { alice, videoWorld } from './video-world.js';

const face = base64(pngBytes(800, 600));

describe('StreamVideo', () => {
  it('delivers fragments as they are encoded and stores the same bytes', async () => {
    const w = videoWorld();
    w.renderer.frameDelayMs = 1;
    const { job, fragments } = await w.stream.execute(alice, { ref_image: face, input: base64(speechBytes(3)) });
    expect(job.status).to.equal('queued');
    expect(w.queue.enqueued).to.deep.equal([], 'a stream renders at once, not through the queue');
    const received: string[] = [];
    let framesAtFirstFragment = -1;
    for await (const f of fragments) {
      if (received.length === 1) framesAtFirstFragment = w.renderer.framesRendered;
      received.push(new TextDecoder().decode(f));
    }
    expect(received).to.deep.equal(['INIT', 'FRAG25', 'FRAG50', 'FRAG75']);
    expect(framesAtFirstFragment).to.be.lessThan(75, 'the first media fragment arrived before the render ended');
    expect(w.renderer.prepared).to.equal(1, 'the face prepared by the check is the one rendered');
    expect(new TextDecoder().decode(await w.content.execute(alice, job.id, undefined))).to.equal(received.join(''));
  });

  it('a reader that goes away does not stop the stored video from completing', async () => {
    const w = videoWorld();
    w.renderer.frameDelayMs = 1;
    const { job, fragments } = await w.stream.execute(alice, { ref_image: face, input: base64(speechBytes(3)) });
    for await (const _f of fragments) break;
    for (let i = 0; i < 200 && (await w.jobs.get(job.id))!.status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await w.jobs.get(job.id))!.status).to.equal('completed');
    expect(new TextDecoder().decode(await w.content.execute(alice, job.id, 'video'))).to.equal('INITFRAG25FRAG50FRAG75');
  });

  it('refuses a bad request before anything is stored, and a render failure ends the stream with an error', async () => {
    const w = videoWorld();
    let refused: unknown = null;
    await w.stream.execute(alice, { ref_image: face, size: 'big', input: base64(speechBytes(1)) }).catch((e) => (refused = e));
    expect(refused).to.have.property('identifier', 'invalid_video_size');
    w.renderer.failAfterFrames = 30;
    const { job, fragments } = await w.stream.execute(alice, { ref_image: face, input: base64(speechBytes(3)) });
    expect(String(await streamError(fragments))).to.match(/could not be rendered/);
    expect((await w.jobs.get(job.id))!.status).to.equal('failed');
  });

  it('renders while the job is stored: frames are made before the row exists, the response waits for the row', async () => {
    const w = videoWorld();
    w.renderer.frameDelayMs = 1;
    w.jobs.insertDelayMs = 40;
    let framesAtInsert = -1;
    w.jobs.onInserted = () => (framesAtInsert = w.renderer.framesRendered);
    const { job, fragments } = await w.stream.execute(alice, { ref_image: face, input: base64(speechBytes(3)) });
    expect(framesAtInsert).to.be.greaterThan(0, 'the render did not wait for the database');
    expect(await w.jobs.get(job.id), 'the row exists when the response is given').to.not.equal(null);
    for await (const _f of fragments);
    expect((await w.jobs.get(job.id))!.status).to.equal('completed');
    const mine = w.jobs.writes.filter((j) => j.id === job.id);
    expect(mine[0], 'the first write is the in_progress mark').to.include({ status: 'in_progress', progress: 0 });
    expect(mine.map((j) => j.progress)).to.deep.equal([...mine.map((j) => j.progress)].sort((a, b) => a - b));
  });

  it("a store that fails is the caller's error: the render stops, no row is left, the slot is free", async () => {
    const w = videoWorld();
    const stream = new StreamVideo(w.create, w.render, undefined, { maxConcurrent: 1 });
    w.renderer.frameDelayMs = 1;
    w.jobs.insertDelayMs = 20;
    w.jobs.insertError = new Error('SQLITE_FULL: database or disk is full');
    let refused: unknown = null;
    await stream.execute(alice, { ref_image: face, input: base64(speechBytes(3)) }).catch((e) => (refused = e));
    expect(String(refused)).to.match(/SQLITE_FULL/);
    for (let i = 0; i < 100 && w.renderer.released === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(w.renderer.released, 'the prepared face was released').to.equal(1);
    const framesThen = w.renderer.framesRendered;
    await new Promise((r) => setTimeout(r, 30));
    expect(w.renderer.framesRendered, 'the render stopped').to.equal(framesThen);
    expect(w.jobs.rows.size).to.equal(0);
    w.jobs.insertError = null;
    const { fragments } = await stream.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    for await (const _f of fragments);
  });

  it('a render that fails before its row is written ends failed once the row exists', async () => {
    const w = videoWorld();
    w.renderer.failAfterFrames = 0;
    w.jobs.insertDelayMs = 30;
    const { job, fragments } = await w.stream.execute(alice, { ref_image: face, input: base64(speechBytes(2)) });
    expect(String(await streamError(fragments))).to.match(/could not be rendered/);
    expect((await w.jobs.get(job.id))!.status).to.equal('failed');
  });

  it('stop() interrupts live renders and leaves their jobs for the next start', async () => {
    const w = videoWorld();
    w.renderer.frameDelayMs = 2;
    const { job } = await w.stream.execute(alice, { ref_image: face, input: base64(speechBytes(4)) });
    await new Promise((r) => setTimeout(r, 20));
    await w.stream.stop();
    expect((await w.jobs.get(job.id))!.status).to.equal('in_progress');
  });
});

/** What reading a stream to its end threw (null: it ended cleanly). */
async function streamError(fragments: AsyncIterable<Uint8Array>): Promise<unknown> {
  try {
    for await (const _f of fragments);
    return null;
  } catch (err) {
    return err;
  }
}
