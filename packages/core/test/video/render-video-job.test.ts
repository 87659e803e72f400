import { expect } from 'chai';
import { RenderInterruptedError } from '../../src/video/render-video-job.js';
import { videoBlobKeys } from '../../src/video/video-blobs.js';
import { base64, DurableRecordingQueue, pngBytes, speechBytes } from './video-fakes.js';
import { alice, videoWorld } from './video-world.js';

const face = base64(pngBytes(800, 600));
const never = new AbortController().signal;

describe('RenderVideoJob (the worker)', () => {
  it('renders a queued job to completed, progress rising as frames are encoded, and stores the MP4', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(4)) });
    await w.render.execute(job.id, never);
    const done = await w.get.execute(alice, job.id);
    expect(done).to.include({ status: 'completed', progress: 100, error: null, attempts: 1 });
    expect(done.completedAt).to.equal(w.clock.now());
    const progress = w.jobs.writes.map((j) => j.progress);
    expect(progress.length).to.be.greaterThan(3, 'progress is written while rendering');
    for (let i = 1; i < progress.length; i++) expect(progress[i]).to.be.at.least(progress[i - 1]!);
    expect(w.jobs.writes.filter((j) => j.status === 'in_progress').every((j) => j.progress < 100)).to.equal(true);
    expect(w.encoder.framesEncoded).to.equal(100);
    const mp4 = new TextDecoder().decode(await w.content.execute(alice, job.id, 'video'));
    expect(mp4).to.equal('INITFRAG25FRAG50FRAG75FRAG100');
    expect(w.renderer.released).to.equal(2, 'the check and the render each release their prepared face');
  });

  it('has the first frame rendered while the encoder starts, not after', async () => {
    const w = videoWorld();
    w.encoder.startDelayMs = 40;
    w.renderer.frameDelayMs = 5;
    let renderedWhenEncoderReads = -1;
    w.encoder.onReading = () => (renderedWhenEncoderReads = w.renderer.framesRendered);
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    await w.render.execute(job.id, never);
    expect(renderedWhenEncoderReads, 'frames ready when the encoder began to read').to.equal(1);
    expect(w.encoder.framesEncoded).to.equal(25);
    expect((await w.get.execute(alice, job.id)).status).to.equal('completed');
  });

  it('passes the synthesizer word timings to the renderer', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, { ref_image: face, input_tts: { input: 'Hello there friend.' } });
    await w.render.execute(job.id, never);
    expect(w.renderer.drives[0]!.words!.map((x) => x.word)).to.deep.equal(['Hello', 'there', 'friend.']);
  });

  it('ends failed with a message a user can act on (no stack) when the renderer throws', async () => {
    const w = videoWorld();
    w.renderer.failAfterFrames = 30;
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(3)) });
    await w.render.execute(job.id, never);
    const failed = await w.get.execute(alice, job.id);
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.match(/could not be rendered because of a server error \(video_\d+\)\. Create it again/);
    expect(failed.error).not.to.match(/TypeError|at |reading/);
    expect(failed.progress).to.be.within(1, 99);
    expect(await w.blobs.get(videoBlobKeys(job).video)).to.equal(null);
  });

  it('fails clearly when the stored inputs are gone', async () => {
    const w = videoWorld();
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    await w.blobs.delete(videoBlobKeys(job).audio);
    await w.render.execute(job.id, never);
    expect((await w.get.execute(alice, job.id)).error).to.equal('The stored inputs of this video are gone; create the video again.');
  });

  it('leaves the job in_progress when the service stops mid-render, for the next start to re-run', async () => {
    const w = videoWorld();
    w.renderer.frameDelayMs = 2;
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(4)) });
    const stop = new AbortController();
    const running = w.render.execute(job.id, stop.signal);
    setTimeout(() => stop.abort(new Error('shutdown')), 40);
    let thrown: unknown = null;
    await running.catch((e) => (thrown = e));
    expect(thrown).to.be.instanceOf(RenderInterruptedError);
    expect((await w.jobs.get(job.id))!.status).to.equal('in_progress');
    expect(w.renderer.framesRendered).to.be.lessThan(100);
  });

  it('stops rendering and stores nothing when the video is deleted meanwhile', async () => {
    const w = videoWorld();
    w.renderer.frameDelayMs = 2;
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(4)) });
    const running = w.render.execute(job.id, never);
    await new Promise((r) => setTimeout(r, 30));
    await w.remove.execute(alice, job.id);
    await running;
    expect(w.renderer.framesRendered).to.be.lessThan(100);
    expect(w.blobs.blobs.size).to.equal(0);
    expect(w.jobs.rows.size).to.equal(0);
  });

  it('skips jobs that are deleted or finished, and one this worker is already rendering', async () => {
    const w = videoWorld();
    await w.render.execute('video_missing', never);
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    await w.render.execute(job.id, never);
    const writes = w.jobs.writes.length;
    await w.render.execute(job.id, never);
    expect(w.jobs.writes.length).to.equal(writes);
    w.renderer.frameDelayMs = 2;
    const busy = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(2)) });
    const first = w.render.execute(busy.id, never);
    await new Promise((r) => setTimeout(r, 20));
    await w.render.execute(busy.id, never); // a second delivery while the first renders: nothing
    await first;
    expect(await w.jobs.get(busy.id)).to.include({ status: 'completed', attempts: 1 });
  });
});

/** Interrupts the render of a fresh 4 s job once it has stored some progress; resolves that progress. */
async function interruptedJob(w: ReturnType<typeof videoWorld>): Promise<{ id: string; progress: number }> {
  w.renderer.frameDelayMs = 2;
  const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(4)) });
  const stop = new AbortController();
  const running = w.render.execute(job.id, stop.signal);
  while (((await w.jobs.get(job.id))?.progress ?? 0) < 20) await new Promise((r) => setTimeout(r, 2));
  stop.abort(new Error('kill -9'));
  await running.catch(() => undefined);
  w.renderer.frameDelayMs = 0;
  const row = (await w.jobs.get(job.id))!;
  expect(row.status).to.equal('in_progress');
  return { id: job.id, progress: row.progress };
}

/** Every stored state of the job from the write at `from` on: never queued again, never below `floor`. */
function expectNeverBackwards(w: ReturnType<typeof videoWorld>, id: string, from: number, floor: number): void {
  const states = w.jobs.writes.slice(from).filter((j) => j.id === id);
  expect(states.length).to.be.greaterThan(0);
  expect(
    states.map((j) => j.status).filter((s) => s === 'queued'),
    'a started job is never queued again',
  ).to.deep.equal([]);
  const progress = states.map((j) => j.progress);
  expect(Math.min(...progress), `progress ${progress.join(',')}`).to.be.at.least(floor);
  for (let i = 1; i < progress.length; i++) expect(progress[i], `progress ${progress.join(',')}`).to.be.at.least(progress[i - 1]!);
}

describe('a started video never goes back (issue 17, defect 2)', () => {
  it('a restart resumes an interrupted job as it is: in_progress at its progress, re-rendered without reporting less, completed', async () => {
    const w = videoWorld();
    const { id, progress } = await interruptedJob(w);
    const from = w.jobs.writes.length;
    expect(await w.resume(3).execute()).to.deep.equal({ requeued: 1, failed: 0 });
    expect(await w.jobs.get(id)).to.include({ status: 'in_progress', progress });
    expect(w.queue.enqueued).to.include(id);
    await w.render.execute(id, never);
    expect(await w.jobs.get(id)).to.include({ status: 'completed', progress: 100, attempts: 2 });
    expectNeverBackwards(w, id, from, progress);
  });

  it('a takeover (a durable queue re-delivers the job of a dead worker) keeps it in_progress at its progress', async () => {
    const queue = new DurableRecordingQueue();
    const w = videoWorld({ queue });
    const { id, progress } = await interruptedJob(w);
    const from = w.jobs.writes.length;
    expect(await w.resume(3).reclaim(id)).to.equal(true);
    expect(await w.jobs.get(id)).to.include({ status: 'in_progress', progress });
    await w.render.execute(id, never);
    expect(await w.jobs.get(id)).to.include({ status: 'completed', progress: 100, attempts: 2 });
    expectNeverBackwards(w, id, from, progress);
  });
});

describe('ResumeVideoJobs (start of the service)', () => {
  it('enqueues queued jobs, resumes interrupted ones (still in_progress) and fails those over the retry budget', async () => {
    const w = videoWorld();
    const queued = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    const interrupted = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    const hopeless = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    const done = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    await w.render.execute(done.id, never);
    await w.jobs.update({ ...interrupted, status: 'in_progress', progress: 40, attempts: 1 });
    await w.jobs.update({ ...hopeless, status: 'in_progress', progress: 40, attempts: 2 });
    w.queue.enqueued = [];
    expect(await w.resume(2).execute()).to.deep.equal({ requeued: 2, failed: 1 });
    expect(w.queue.enqueued).to.have.members([queued.id, interrupted.id]);
    expect(await w.jobs.get(interrupted.id)).to.include({ status: 'in_progress', progress: 40 });
    const failed = (await w.jobs.get(hopeless.id))!;
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.match(/stopped 2 times while rendering this video.*create it again/);
    // The requeued job then renders to completion.
    await w.render.execute(interrupted.id, never);
    expect(await w.jobs.get(interrupted.id)).to.include({ status: 'completed', attempts: 2 });
  });
});

describe('ResumeVideoJobs with a durable queue (several processes)', () => {
  it('leaves held jobs to the queue, enqueues lost queued rows, and re-queues an unheld in_progress row only once it stops moving', async () => {
    const queue = new DurableRecordingQueue();
    const w = videoWorld({ queue });
    const held = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    const lost = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    const live = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    const dead = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    queue.held.add(held.id);
    await w.jobs.update({ ...live, status: 'in_progress', progress: 10, attempts: 1 });
    await w.jobs.update({ ...dead, status: 'in_progress', progress: 30, attempts: 1 });
    queue.enqueued = [];
    const resume = w.resume(2);
    expect(await resume.execute()).to.deep.equal({ requeued: 1, failed: 0 });
    expect(queue.enqueued).to.deep.equal([lost.id]);
    // Between scans the live render moves on; the dead one does not.
    await w.jobs.update({ ...live, status: 'in_progress', progress: 20, attempts: 1 });
    queue.enqueued = [];
    expect(await resume.execute()).to.deep.equal({ requeued: 2, failed: 0 });
    expect(queue.enqueued).to.have.members([lost.id, dead.id]);
    expect(await w.jobs.get(dead.id)).to.include({ status: 'in_progress', progress: 30 });
    expect(await w.jobs.get(live.id)).to.include({ status: 'in_progress', progress: 20 });
  });

  it('reclaim: a re-delivered in_progress job runs again within the budget (still in_progress), then fails', async () => {
    const queue = new DurableRecordingQueue();
    const w = videoWorld({ queue });
    const job = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    const resume = w.resume(2);
    expect(await resume.reclaim(job.id)).to.equal(true, 'a queued row runs as it is');
    await w.jobs.update({ ...job, status: 'in_progress', progress: 50, attempts: 1 });
    expect(await resume.reclaim(job.id)).to.equal(true);
    expect(await w.jobs.get(job.id)).to.include({ status: 'in_progress', progress: 50 });
    await w.render.execute(job.id, never);
    expect(await w.jobs.get(job.id)).to.include({ status: 'completed', attempts: 2 });
    const other = await w.create.execute(alice, { ref_image: face, input: base64(speechBytes(1)) });
    await w.jobs.update({ ...other, status: 'in_progress', progress: 50, attempts: 2 });
    expect(await resume.reclaim(other.id)).to.equal(false);
    expect((await w.jobs.get(other.id))!.error).to.match(/stopped 2 times/);
  });
});
