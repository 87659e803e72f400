import { expect } from 'chai';
import type { PcmAudio } from '../../src/shared/audio.js';
import { LiveVideoLimitError } from '../../src/video/errors.js';
import type { MediaEncoder, VideoFrame } from '../../src/video/ports.js';
import { RenderVideoJob } from '../../src/video/render-video-job.js';
import type { StageMark } from '../../src/video/stage-timeline.js';
import { StreamVideo } from '../../src/video/stream-video.js';
import { TopLevelBoxWatcher } from '../../src/video/top-level-box-watcher.js';
import type { VideoRequestInput } from '../../src/video/video-request.js';
import { base64, pngBytes, speechBytes } from './video-fakes.js';
import { alice, videoWorld } from './video-world.js';

const face = base64(pngBytes(800, 600));

/** An MP4 box: 4-byte size, 4-byte type, payload. */
function box(type: string, payloadBytes = 8): Uint8Array {
  const out = new Uint8Array(8 + payloadBytes);
  new DataView(out.buffer).setUint32(0, out.length);
  out.set(new TextEncoder().encode(type), 4);
  return out;
}

/** ftyp + moov, then one moof + mdat per 5 frames, cut into 3-byte chunks like a pipe may. */
class BoxEncoder implements MediaEncoder {
  async *encodeFragmentedMp4(
    frames: AsyncIterable<VideoFrame>,
    _audio: PcmAudio,
    options: { fps: number; onStarted?: () => void },
  ): AsyncIterable<Uint8Array> {
    options.onStarted?.();
    const bytes = (parts: Uint8Array[]) => {
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let o = 0;
      for (const p of parts) (all.set(p, o), (o += p.length));
      return all;
    };
    const chunks = function* (all: Uint8Array) {
      for (let i = 0; i < all.length; i += 3) yield all.subarray(i, i + 3);
    };
    yield* chunks(bytes([box('ftyp'), box('moov', 40)]));
    let n = 0;
    const fragment = () => chunks(bytes([box('moof', 20), box('mdat', 100)]));
    for await (const _f of frames) if (++n % 5 === 0) yield* fragment();
    if (n % 5 !== 0) yield* fragment();
  }
}

describe('StreamVideo: the live-stream cap and the stage timeline', () => {
  it('refuses a stream over the cap with 429 concurrency_limit_exceeded before reading its body; a finished or refused stream frees its slot', async () => {
    const w = videoWorld();
    w.renderer.frameDelayMs = 2;
    const stream = new StreamVideo(w.create, w.render, undefined, { maxConcurrent: 1 });
    const request = (): VideoRequestInput => ({ ref_image: face, input: base64(speechBytes(2)) });
    const first = await stream.execute(alice, request());

    let bodyRead = false;
    const refused = await stream
      .execute(alice, async () => {
        bodyRead = true;
        return request();
      })
      .catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(LiveVideoLimitError);
    expect(refused).to.have.property('identifier', 'concurrency_limit_exceeded');
    expect(refused).to.have.property('retryAfterSeconds').that.is.above(0);
    expect(bodyRead, 'the body of a refused stream is never read').to.equal(false);
    expect(w.jobs.rows.size, 'nothing stored for the refused stream').to.equal(1);

    for await (const _f of first.fragments);
    for (let i = 0; i < 100 && (await w.jobs.get(first.job.id))!.status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setImmediate(r));
    // an invalid request takes the slot while it is checked and gives it back when refused
    const invalid = await stream.execute(alice, { ref_image: face, size: 'big', input: base64(speechBytes(1)) }).catch((e: unknown) => e);
    expect(invalid).to.have.property('identifier', 'invalid_video_size');
    const second = await stream.execute(alice, async () => request());
    for await (const _f of second.fragments);
    expect((await w.jobs.get(second.job.id))!.status).to.equal('completed');
  });

  it('times every stage of a stream, in order, and reports it once the first moof has left', async () => {
    const w = videoWorld();
    const render = new RenderVideoJob(w.jobs, w.blobs, w.renderer, new BoxEncoder(), w.clock);
    const stream = new StreamVideo(w.create, render, undefined, { clock: w.clock });
    const reports: Array<{ video: string; stages: readonly StageMark[] }> = [];
    stream.watchTimelines((video, stages) => reports.push({ video, stages: [...stages] }));
    const { job, fragments } = await stream.execute(
      alice,
      { ref_image: face, input_tts: { input: 'Hello there, this is a test.' } },
      undefined,
      { receivedAt: w.clock.now() },
    );
    let chunks = 0;
    for await (const _f of fragments) {
      chunks++;
      if (chunks === 1) expect(reports, 'not before the first moof').to.have.length(0);
    }
    expect(reports).to.have.length(1);
    expect(reports[0]!.video).to.equal(job.id);
    const marks = reports[0]!.stages.filter((m) => m.atMs !== undefined).map((m) => m.stage);
    expect(marks.slice(0, 2)).to.deep.equal(['body parsed', 'image checked']);
    expect(marks.slice(2, 4)).to.have.members(['face prepared', 'speech ready']);
    // the job is stored while the render starts: its mark falls anywhere after the checks
    expect(marks.slice(4)).to.include('job stored');
    expect(marks.slice(4).filter((m) => m !== 'job stored')).to.deep.equal([
      'render started',
      'encoder started',
      'first bytes out',
      'first frame',
      'first fragment out',
    ]);
  });
});

describe('TopLevelBoxWatcher', () => {
  it('finds the first box of a type however the stream is cut, and only once', () => {
    const stream = new Uint8Array([...box('ftyp', 12), ...box('moov', 300), ...box('moof', 50), ...box('mdat', 7), ...box('moof', 50)]);
    const moofAt = 20 + 308;
    for (const cut of [1, 2, 3, 5, 8, 13, 64, 1000]) {
      const watcher = new TopLevelBoxWatcher('moof');
      const hits: number[] = [];
      for (let i = 0; i < stream.length; i += cut) if (watcher.push(stream.subarray(i, i + cut))) hits.push(i);
      expect(hits, `chunks of ${cut}`).to.have.length(1);
      // the hit is the chunk that holds the last byte of the moof header
      expect(hits[0]! <= moofAt + 7 && hits[0]! + cut > moofAt + 7, `chunks of ${cut}`).to.equal(true);
    }
    // a type that never starts a top-level box (only inside a payload) is never reported
    const inside = new TopLevelBoxWatcher('mdat');
    expect(inside.push(new Uint8Array([...box('ftyp', 16)].map((b, i) => (i >= 8 && i < 12 ? 'mdat'.charCodeAt(i - 8) : b))))).to.equal(
      false,
    );
  });
});
