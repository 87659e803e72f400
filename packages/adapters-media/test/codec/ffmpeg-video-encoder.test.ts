// @test-tier slow: encodes video with real ffmpeg
import { expect } from 'chai';
import { FfmpegVideoEncoder, padToFrames } from '../../src/codec/ffmpeg-video-encoder.js';
import { AVATAR_VIDEO_CODECS, aacCodecString, avcCodecString } from '../../src/codec/mp4-codec-string.js';
import { runFfmpeg } from '../../src/codec/ffmpeg/run-ffmpeg.js';
import type { VideoFrame } from '@svc/core';
import { collect, isRunning, sine, waitUntilGone } from '@svc/adapters-testing';
import { topLevelBoxes, trackRunDurations } from './mp4-boxes.js';

/** Frames of a moving gradient (something for x264 to encode), made lazily, counted as they are pulled. */
function gradientFrames(count: number, width: number, height: number, pulled: { n: number } = { n: 0 }): AsyncGenerator<VideoFrame> {
  return (async function* () {
    for (let k = 0; k < count; k++) {
      const rgb = new Uint8Array(width * height * 3);
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const o = (y * width + x) * 3;
          rgb[o] = (x + k * 4) & 255;
          rgb[o + 1] = (y * 2) & 255;
          rgb[o + 2] = (k * 8) & 255;
        }
      }
      pulled.n++;
      yield { rgb, width, height };
    }
  })();
}

describe('FfmpegVideoEncoder (real ffmpeg, fragmented MP4)', function () {
  this.timeout(60000);

  it('streams an MSE-playable fMP4: ftyp+moov first, then one-second moof/mdat fragments, baseline H.264 + AAC-LC', async () => {
    const audio = { samples: sine(220, 24000, 3.0), sampleRate: 24000 };
    const chunks: Uint8Array[] = [];
    for await (const c of new FfmpegVideoEncoder().encodeFragmentedMp4(gradientFrames(75, 640, 640), audio, {
      fps: 25,
      width: 640,
      height: 640,
    })) {
      chunks.push(c);
    }
    expect(chunks.length).to.be.greaterThan(1);
    const mp4 = Buffer.concat(chunks);
    const boxes = topLevelBoxes(mp4).map((b) => b.type);
    expect(boxes.slice(0, 2)).to.deep.equal(['ftyp', 'moov']);
    expect(boxes.filter((t) => t === 'moof').length).to.be.within(3, 5); // about one per second of 3 s
    expect(avcCodecString(mp4)).to.equal('avc1.42C01E');
    expect(aacCodecString(mp4)).to.equal('mp4a.40.2');
    expect(`${avcCodecString(mp4)},${aacCodecString(mp4)}`).to.equal(AVATAR_VIDEO_CODECS);
    // every video sample lasts one frame: no gaps or stretched frames for MSE to stall on
    const runs = trackRunDurations(mp4);
    // (the first one also absorbs the AAC encoder's 1024-sample priming, 21 ms at 48 kHz)
    expect(runs.video.samples).to.equal(75);
    const [first, ...rest] = runs.video.durations;
    expect(new Set(rest).size).to.equal(1);
    expect(first! - rest[0]!).to.be.within(0, (rest[0]! * 1024) / 48000 / 0.04 + 1);
  });

  it('the first fragment holds only the first frame (a live player can show it at once), the next ones one second each; each starts on a keyframe', async () => {
    const audio = { samples: sine(220, 24000, 3.0), sampleRate: 24000 };
    const framesPerFragment = (mp4: Uint8Array) =>
      topLevelBoxes(mp4)
        .filter((b) => b.type === 'moof')
        .map((b) => trackRunDurations(mp4.subarray(b.start, b.start + b.size)).video.samples);
    const mp4 = await collect(
      new FfmpegVideoEncoder().encodeFragmentedMp4(gradientFrames(75, 640, 480), audio, { fps: 25, width: 640, height: 480 }),
    );
    expect(framesPerFragment(mp4)).to.deep.equal([1, 25, 25, 24]);
    // frag_keyframe cuts at keyframes only: 4 fragments of 1/25/25/24 frames are keyframes at 0, 0.04, 1.04, 2.04 s
    expect(await keyframeCount(mp4)).to.equal(4);
    // a longer first fragment on request (0.2 s: 5 frames)
    const fifth = await collect(
      new FfmpegVideoEncoder({ firstFragmentSeconds: 0.2 }).encodeFragmentedMp4(gradientFrames(75, 640, 480), audio, {
        fps: 25,
        width: 640,
        height: 480,
      }),
    );
    expect(framesPerFragment(fifth)).to.deep.equal([5, 25, 25, 20]);
    // without it: 1 s from the start
    const plain = await collect(
      new FfmpegVideoEncoder({ firstFragmentSeconds: 0 }).encodeFragmentedMp4(gradientFrames(50, 640, 480), audio, {
        fps: 25,
        width: 640,
        height: 480,
      }),
    );
    expect(framesPerFragment(plain)).to.deep.equal([25, 25]);
  });

  it('keyframeSeconds: 0.5 makes half-second fragments', async () => {
    const audio = { samples: sine(220, 24000, 2.0), sampleRate: 24000 };
    const mp4 = await collect(
      new FfmpegVideoEncoder({ keyframeSeconds: 0.5 }).encodeFragmentedMp4(gradientFrames(50, 640, 480), audio, {
        fps: 25,
        width: 640,
        height: 480,
      }),
    );
    expect(topLevelBoxes(mp4).filter((b) => b.type === 'moof').length).to.be.within(4, 5);
  });

  it('makes audio and video the same length (the audio padded to the last frame)', async () => {
    // 2.03 s of audio -> ceil(2.03 * 25) = 51 frames = 2.04 s
    const audio = { samples: sine(300, 16000, 2.03), sampleRate: 16000 };
    expect(padToFrames(audio, 25).samples.length).to.equal(Math.round(2.04 * 16000));
    const mp4 = await collect(
      new FfmpegVideoEncoder().encodeFragmentedMp4(gradientFrames(51, 480, 640), audio, { fps: 25, width: 480, height: 640 }),
    );
    const durations = await streamDurations(mp4);
    expect(durations.video).to.be.closeTo(2.04, 0.001);
    expect(Math.abs(durations.audio - durations.video)).to.be.lessThan(0.03); // one AAC frame at 48 kHz is 21 ms
  });

  it('pulls frames only as fast as the consumer reads (backpressure), and a stopped read kills ffmpeg', async () => {
    const pulled = { n: 0 };
    let pid = 0;
    const encoder = new FfmpegVideoEncoder({ onSpawn: (p) => (pid = p) });
    const audio = { samples: sine(220, 24000, 60), sampleRate: 24000 };
    const iterator = encoder
      .encodeFragmentedMp4(gradientFrames(1500, 640, 480, pulled), audio, { fps: 25, width: 640, height: 480 })
      [Symbol.asyncIterator]();
    await iterator.next(); // the init segment
    await new Promise((r) => setTimeout(r, 1500)); // a consumer that stops reading
    expect(pulled.n).to.be.lessThan(400); // bounded by pipe buffers, not the whole 60 s
    await iterator.return!(undefined);
    expect(pid).to.be.greaterThan(0);
    await waitUntilGone(pid);
  });

  it('an aborted encode rejects with AbortError and leaves no ffmpeg behind; a finished one leaves none either', async () => {
    let pid = 0;
    const encoder = new FfmpegVideoEncoder({ onSpawn: (p) => (pid = p) });
    const controller = new AbortController();
    const audio = { samples: sine(220, 24000, 20), sampleRate: 24000 };
    let error: unknown = null;
    try {
      let n = 0;
      for await (const _ of encoder.encodeFragmentedMp4(
        gradientFrames(500, 640, 640),
        audio,
        { fps: 25, width: 640, height: 640 },
        controller.signal,
      )) {
        if (++n === 2) controller.abort();
      }
    } catch (err) {
      error = err;
    }
    expect((error as Error)?.name).to.equal('AbortError');
    await waitUntilGone(pid);

    await collect(
      encoder.encodeFragmentedMp4(
        gradientFrames(10, 640, 640),
        { samples: sine(220, 24000, 0.4), sampleRate: 24000 },
        { fps: 25, width: 640, height: 640 },
      ),
    );
    await waitUntilGone(pid, 500);
  });

  it('open(): ffmpeg starts before its frames and audio exist, waits for them, and the output is the same as an encode started with them', async () => {
    const audio = { samples: sine(220, 24000, 1.0), sampleRate: 24000 };
    const format = { fps: 25, width: 640, height: 480 };
    let pid = 0;
    let started = 0;
    const encoder = new FfmpegVideoEncoder({ onSpawn: (p) => (pid = p) });
    const opened = encoder.open({ ...format, onStarted: () => started++ });
    await new Promise((r) => setTimeout(r, 300)); // the face and the speech are being prepared
    expect(started).to.equal(1);
    expect(pid).to.be.greaterThan(0);
    expect(isRunning(pid)).to.equal(true); // waiting on its pipes, not failed for want of input
    const early = await collect(opened.encode(gradientFrames(25, 640, 480), audio));
    await waitUntilGone(pid, 500);
    const direct = await collect(encoder.encodeFragmentedMp4(gradientFrames(25, 640, 480), audio, format));
    // x264 and the AAC encoder are deterministic: byte for byte the same file
    expect(Buffer.compare(Buffer.from(early), Buffer.from(direct))).to.equal(0);
    expect(() => opened.encode(gradientFrames(1, 640, 480), audio)).to.throw(/once/);
  });

  it('open(): an encoder closed unused (a refused request) leaves no ffmpeg behind, whether it had spawned yet or not; so does an aborted signal', async () => {
    const format = { fps: 25, width: 640, height: 640 };
    const pids: number[] = [];
    const encoder = new FfmpegVideoEncoder({ onSpawn: (p) => pids.push(p) });
    const spawned = encoder.open(format);
    await new Promise((r) => setTimeout(r, 200));
    expect(pids).to.have.length(1);
    spawned.close();
    await waitUntilGone(pids[0]!);
    // closed in the same turn it was opened: never spawned at all
    encoder.open(format).close();
    await new Promise((r) => setTimeout(r, 200));
    expect(pids).to.have.length(1);
    // the service's signal (shutdown) ends one that was never used
    const shutdown = new AbortController();
    encoder.open(format, shutdown.signal);
    await new Promise((r) => setTimeout(r, 200));
    expect(pids).to.have.length(2);
    shutdown.abort();
    await waitUntilGone(pids[1]!);
  });

  it('standby: after the first video one ffmpeg waits for the next, which forks nothing; the output is the same; close() kills it and starts no other', async () => {
    const audio = { samples: sine(220, 24000, 0.6), sampleRate: 24000 };
    const format = { fps: 25, width: 640, height: 480 };
    const pids: number[] = [];
    const encoder = new FfmpegVideoEncoder({ standby: true, onSpawn: (p) => pids.push(p) });
    await new Promise((r) => setTimeout(r, 400));
    expect(pids, 'an idle encoder keeps no ffmpeg').to.have.length(0);
    const first = await collect(encoder.encodeFragmentedMp4(gradientFrames(15, 640, 480), audio, format));
    await until(() => pids.length === 2);
    const standby = pids[1]!;
    expect(isRunning(standby)).to.equal(true);
    let started = 0;
    const second = await collect(encoder.open({ ...format, onStarted: () => started++ }).encode(gradientFrames(15, 640, 480), audio));
    expect(started, 'reported started at once').to.equal(1);
    expect(Buffer.compare(Buffer.from(first), Buffer.from(second))).to.equal(0);
    await waitUntilGone(standby);
    await until(() => pids.length === 3); // the next one, for the video after
    // one opened for a request that is then refused goes back to waiting: not killed, nothing forked
    encoder.open(format).close();
    await new Promise((r) => setTimeout(r, 300));
    expect(pids).to.have.length(3);
    expect(isRunning(pids[2]!)).to.equal(true);
    encoder.close();
    await waitUntilGone(pids[2]!);
    await collect(encoder.encodeFragmentedMp4(gradientFrames(5, 640, 480), audio, format)); // still encodes, with its own ffmpeg
    await new Promise((r) => setTimeout(r, 600));
    expect(pids, 'closed: no standby started again').to.have.length(4);
    await waitUntilGone(pids[3]!);
  });

  it('preload(): the audio given before the frames makes the same file; an encoder closed after a preload is never the standby', async () => {
    const audio = { samples: sine(220, 24000, 0.6), sampleRate: 24000 };
    const format = { fps: 25, width: 640, height: 480 };
    const pids: number[] = [];
    const encoder = new FfmpegVideoEncoder({ standby: true, onSpawn: (p) => pids.push(p) });
    try {
      const plain = await collect(encoder.encodeFragmentedMp4(gradientFrames(15, 640, 480), audio, format));
      await until(() => pids.length === 2); // the standby
      const opened = encoder.open(format);
      opened.preload!(audio);
      await new Promise((r) => setTimeout(r, 200)); // the face is still being prepared
      const preloaded = await collect(opened.encode(gradientFrames(15, 640, 480), audio));
      expect(Buffer.compare(Buffer.from(plain), Buffer.from(preloaded))).to.equal(0);
      await until(() => pids.length === 3);
      // a request refused after its speech reached the standby: that ffmpeg holds its audio and is ended
      const refused = encoder.open(format);
      refused.preload!(audio);
      refused.close();
      await waitUntilGone(pids[2]!);
      await until(() => pids.length === 4);
      expect(isRunning(pids[3]!), 'a fresh standby for the next video').to.equal(true);
    } finally {
      encoder.close();
    }
  });

  it('preload(): ffmpeg sets up x264 and writes the MP4 header on its priming frame, before any real frame; the priming frame is not in the video', async () => {
    const audio = { samples: sine(220, 24000, 0.6), sampleRate: 24000 };
    const opened = new FfmpegVideoEncoder().open({ fps: 25, width: 640, height: 480 });
    opened.preload!(audio);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let given = false;
    const frames = (async function* () {
      await gate; // the face is still being prepared: no frame exists yet
      given = true;
      yield* gradientFrames(15, 640, 480);
    })();
    const output = opened.encode(frames, audio)[Symbol.asyncIterator]();
    const early: Uint8Array[] = [];
    const timeout = new Promise<null>((r) => setTimeout(() => r(null), 5000));
    while (!topLevelBoxes(Buffer.concat(early)).some((b) => b.type === 'moov')) {
      const next = await Promise.race([output.next(), timeout]);
      if (!next || next.done) break;
      early.push(next.value);
    }
    expect(given, 'no frame had been given').to.equal(false);
    expect(topLevelBoxes(Buffer.concat(early)).map((b) => b.type)).to.deep.equal(['ftyp', 'moov']);
    release();
    const rest: Uint8Array[] = [];
    for (let next = await output.next(); !next.done; next = await output.next()) rest.push(next.value);
    const mp4 = Buffer.concat([...early, ...rest]);
    const grey = await collect(
      runFfmpeg({
        args: ['-i', 'pipe:0', '-map', '0:v', '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'gray', '-s', '16x16', 'pipe:1'],
        stdin: once(mp4),
      }),
    );
    expect(grey.length / 256, 'decoded frames: the 15 given, not the priming one').to.equal(15);
    const firstMean = grey.subarray(0, 256).reduce((a, b) => a + b, 0) / 256;
    expect(firstMean, 'the first picture is the first frame given (a gradient), not the black priming frame').to.be.above(60);
  });

  it('standby: one that died is replaced by a fresh ffmpeg, one of another size is killed; the videos come out whole', async () => {
    const audio = { samples: sine(220, 24000, 0.6), sampleRate: 24000 };
    const pids: number[] = [];
    const encoder = new FfmpegVideoEncoder({ standby: true, onSpawn: (p) => pids.push(p) });
    try {
      await collect(encoder.encodeFragmentedMp4(gradientFrames(15, 640, 480), audio, { fps: 25, width: 640, height: 480 }));
      await until(() => pids.length === 2);
      process.kill(pids[1]!, 'SIGKILL'); // the standby crashes while it waits
      await waitUntilGone(pids[1]!);
      // no wait for its pipes to report the death: the encoder must see it from the process itself
      const mp4 = await collect(encoder.encodeFragmentedMp4(gradientFrames(15, 640, 480), audio, { fps: 25, width: 640, height: 480 }));
      expect(pids.length, 'a fresh ffmpeg for that video (and the next standby, once its first fragment left)').to.be.within(3, 4);
      expect(topLevelBoxes(mp4).filter((b) => b.type === 'moof').length).to.equal(2);
      await until(() => pids.length === 4);
      const square = await collect(encoder.encodeFragmentedMp4(gradientFrames(15, 640, 640), audio, { fps: 25, width: 640, height: 640 }));
      await waitUntilGone(pids[3]!); // the 640x480 standby, not usable for 640x640
      expect(pids.length).to.be.within(5, 6);
      expect(trackRunDurations(square).video.samples).to.equal(15);
    } finally {
      encoder.close();
    }
    await new Promise((r) => setTimeout(r, 400));
    for (const pid of pids) await waitUntilGone(pid);
  });

  it('refuses a frame of the wrong size', async () => {
    const frames = (async function* () {
      yield { rgb: new Uint8Array(10), width: 2, height: 2 };
    })();
    let error: unknown = null;
    try {
      await collect(
        new FfmpegVideoEncoder().encodeFragmentedMp4(
          frames,
          { samples: sine(220, 24000, 0.2), sampleRate: 24000 },
          { fps: 25, width: 640, height: 640 },
        ),
      );
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/frame of 2x2/);
  });
});

async function until(condition: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Durations of the video and audio streams as ffmpeg decodes them back. */
async function streamDurations(mp4: Uint8Array): Promise<{ video: number; audio: number }> {
  return decodeInfo(mp4);
}

async function decodeInfo(mp4: Uint8Array): Promise<{ video: number; audio: number }> {
  // video: decoded frames * 40 ms; audio: decoded PCM samples at 48 kHz
  const frames = await collect(
    runFfmpeg({
      args: ['-i', 'pipe:0', '-map', '0:v', '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'gray', '-s', '16x16', 'pipe:1'],
      stdin: once(mp4),
    }),
  );
  const pcm = await collect(
    runFfmpeg({ args: ['-i', 'pipe:0', '-map', '0:a', '-f', 's16le', '-ac', '1', '-ar', '48000', 'pipe:1'], stdin: once(mp4) }),
  );
  return { video: frames.length / 256 / 25, audio: pcm.length / 2 / 48000 };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** How many video keyframes ffmpeg decodes back (the others skipped). */
async function keyframeCount(mp4: Uint8Array): Promise<number> {
  const frames = await collect(
    runFfmpeg({
      args: [
        '-skip_frame',
        'nokey',
        '-i',
        'pipe:0',
        '-map',
        '0:v',
        '-vsync',
        '0',
        '-f',
        'rawvideo',
        '-pix_fmt',
        'gray',
        '-s',
        '16x16',
        'pipe:1',
      ],
      stdin: once(mp4),
    }),
  );
  return frames.length / 256;
}
