import { expect } from 'chai';
import { FfmpegVideoEncoder, padToFrames } from '../../src/codec/ffmpeg-video-encoder.js';
import { AVATAR_VIDEO_CODECS, aacCodecString, avcCodecString } from '../../src/codec/mp4-codec-string.js';
import { runFfmpeg } from '../../src/codec/ffmpeg/run-ffmpeg.js';
import type { VideoFrame } from '@svc/core';
import { collect, sine, waitUntilGone } from '../codec/codec-helpers.js';
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
    for await (const c of new FfmpegVideoEncoder().encodeFragmentedMp4(gradientFrames(75, 640, 640), audio, { fps: 25, width: 640, height: 640 })) {
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
    const mp4 = await collect(new FfmpegVideoEncoder().encodeFragmentedMp4(gradientFrames(75, 640, 480), audio, { fps: 25, width: 640, height: 480 }));
    expect(framesPerFragment(mp4)).to.deep.equal([1, 25, 25, 24]);
    // frag_keyframe cuts at keyframes only: 4 fragments of 1/25/25/24 frames are keyframes at 0, 0.04, 1.04, 2.04 s
    expect(await keyframeCount(mp4)).to.equal(4);
    // a longer first fragment on request (0.2 s: 5 frames)
    const fifth = await collect(new FfmpegVideoEncoder({ firstFragmentSeconds: 0.2 }).encodeFragmentedMp4(gradientFrames(75, 640, 480), audio, { fps: 25, width: 640, height: 480 }));
    expect(framesPerFragment(fifth)).to.deep.equal([5, 25, 25, 20]);
    // without it: 1 s from the start
    const plain = await collect(new FfmpegVideoEncoder({ firstFragmentSeconds: 0 }).encodeFragmentedMp4(gradientFrames(50, 640, 480), audio, { fps: 25, width: 640, height: 480 }));
    expect(framesPerFragment(plain)).to.deep.equal([25, 25]);
  });

  it('keyframeSeconds: 0.5 makes half-second fragments', async () => {
    const audio = { samples: sine(220, 24000, 2.0), sampleRate: 24000 };
    const mp4 = await collect(new FfmpegVideoEncoder({ keyframeSeconds: 0.5 }).encodeFragmentedMp4(gradientFrames(50, 640, 480), audio, { fps: 25, width: 640, height: 480 }));
    expect(topLevelBoxes(mp4).filter((b) => b.type === 'moof').length).to.be.within(4, 5);
  });

  it('makes audio and video the same length (the audio padded to the last frame)', async () => {
    // 2.03 s of audio -> ceil(2.03 * 25) = 51 frames = 2.04 s
    const audio = { samples: sine(300, 16000, 2.03), sampleRate: 16000 };
    expect(padToFrames(audio, 25).samples.length).to.equal(Math.round(2.04 * 16000));
    const mp4 = await collect(new FfmpegVideoEncoder().encodeFragmentedMp4(gradientFrames(51, 480, 640), audio, { fps: 25, width: 480, height: 640 }));
    const durations = await streamDurations(mp4);
    expect(durations.video).to.be.closeTo(2.04, 0.001);
    expect(Math.abs(durations.audio - durations.video)).to.be.lessThan(0.03); // one AAC frame at 48 kHz is 21 ms
  });

  it('pulls frames only as fast as the consumer reads (backpressure), and a stopped read kills ffmpeg', async () => {
    const pulled = { n: 0 };
    let pid = 0;
    const encoder = new FfmpegVideoEncoder({ onSpawn: (p) => (pid = p) });
    const audio = { samples: sine(220, 24000, 60), sampleRate: 24000 };
    const iterator = encoder.encodeFragmentedMp4(gradientFrames(1500, 640, 480, pulled), audio, { fps: 25, width: 640, height: 480 })[Symbol.asyncIterator]();
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
      for await (const _ of encoder.encodeFragmentedMp4(gradientFrames(500, 640, 640), audio, { fps: 25, width: 640, height: 640 }, controller.signal)) {
        if (++n === 2) controller.abort();
      }
    } catch (err) {
      error = err;
    }
    expect((error as Error)?.name).to.equal('AbortError');
    await waitUntilGone(pid);

    await collect(encoder.encodeFragmentedMp4(gradientFrames(10, 640, 640), { samples: sine(220, 24000, 0.4), sampleRate: 24000 }, { fps: 25, width: 640, height: 640 }));
    await waitUntilGone(pid, 500);
  });

  it('refuses a frame of the wrong size', async () => {
    const frames = (async function* () {
      yield { rgb: new Uint8Array(10), width: 2, height: 2 };
    })();
    let error: unknown = null;
    try {
      await collect(new FfmpegVideoEncoder().encodeFragmentedMp4(frames, { samples: sine(220, 24000, 0.2), sampleRate: 24000 }, { fps: 25, width: 640, height: 640 }));
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/frame of 2x2/);
  });
});

/** Durations of the video and audio streams as ffmpeg decodes them back. */
async function streamDurations(mp4: Uint8Array): Promise<{ video: number; audio: number }> {
  return decodeInfo(mp4);
}

async function decodeInfo(mp4: Uint8Array): Promise<{ video: number; audio: number }> {
  // video: decoded frames * 40 ms; audio: decoded PCM samples at 48 kHz
  const frames = await collect(runFfmpeg({ args: ['-i', 'pipe:0', '-map', '0:v', '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'gray', '-s', '16x16', 'pipe:1'], stdin: once(mp4) }));
  const pcm = await collect(runFfmpeg({ args: ['-i', 'pipe:0', '-map', '0:a', '-f', 's16le', '-ac', '1', '-ar', '48000', 'pipe:1'], stdin: once(mp4) }));
  return { video: frames.length / 256 / 25, audio: pcm.length / 2 / 48000 };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** How many video keyframes ffmpeg decodes back (the others skipped). */
async function keyframeCount(mp4: Uint8Array): Promise<number> {
  const frames = await collect(
    runFfmpeg({ args: ['-skip_frame', 'nokey', '-i', 'pipe:0', '-map', '0:v', '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'gray', '-s', '16x16', 'pipe:1'], stdin: once(mp4) }),
  );
  return frames.length / 256;
}
