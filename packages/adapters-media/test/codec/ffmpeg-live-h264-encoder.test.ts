import { expect } from 'chai';
import type { EncodedVideoFrame, VideoFrame } from '@svc/core';
import { FfmpegLiveH264Encoder } from '../../src/codec/ffmpeg-live-h264-encoder.js';
import { NAL_IDR, NAL_PPS, NAL_SPS } from '../../src/codec/flv-h264-reader.js';
import { runFfmpeg } from '../../src/codec/ffmpeg/run-ffmpeg.js';
import { collect, waitUntilGone } from '@svc/adapters-testing';

const W = 320;
const H = 240;

/** A moving gradient with a bar: frame k differs from k-1 everywhere (P-frames carry something). */
function pattern(k: number): VideoFrame {
  const rgb = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const o = (y * W + x) * 3;
      rgb[o] = (x + 3 * k) & 255;
      rgb[o + 1] = (y + k) & 255;
      rgb[o + 2] = Math.abs(x - ((k * 7) % W)) < 12 ? 250 : 40;
    }
  }
  return { rgb, width: W, height: H };
}

const type = (nal: Uint8Array): number => nal[0]! & 0x1f;

function annexB(frames: EncodedVideoFrame[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of frames) for (const nal of f.nalUnits) parts.push(new Uint8Array([0, 0, 0, 1]), nal);
  return Buffer.concat(parts);
}

describe('FfmpegLiveH264Encoder (real ffmpeg, libx264 for WebRTC)', function () {
  this.timeout(120000);

  it('one access unit per frame, in order: constrained baseline 3.1, a keyframe with SPS+PPS first and every keyframeSeconds', async () => {
    const stream = new FfmpegLiveH264Encoder({ keyframeSeconds: 1 }).open({ width: W, height: H, fps: 25 });
    const frames: EncodedVideoFrame[] = [];
    const latency: number[] = [];
    try {
      for (let k = 0; k < 50; k++) {
        const started = performance.now();
        frames.push(await stream.encode(pattern(k)));
        latency.push(performance.now() - started);
      }
    } finally {
      stream.close();
    }
    expect(frames).to.have.length(50);
    const keyframes = frames.flatMap((f, k) => (f.keyframe ? [k] : []));
    expect(keyframes).to.deep.equal([0, 25]);
    for (const k of keyframes) {
      const types = frames[k]!.nalUnits.map(type);
      expect(types.indexOf(NAL_SPS), `frame ${k}: ${types}`).to.equal(0);
      expect(types.indexOf(NAL_PPS), `frame ${k}: ${types}`).to.equal(1);
      expect(types).to.include(NAL_IDR);
    }
    for (const f of frames.filter((f) => !f.keyframe)) expect(f.nalUnits.map(type)).to.not.include(NAL_IDR);
    const sps = frames[0]!.nalUnits[0]!;
    expect(sps[1], 'profile_idc: baseline').to.equal(66);
    expect(sps[2]! & 0x40, 'constraint_set1: constrained baseline').to.equal(0x40);
    expect(sps[3], 'level_idc 3.1').to.equal(31);
    latency.sort((a, b) => a - b);
    if (process.env.SVC_AVATAR_REPORT)
      console.log(`      encode ${W}x${H}: p50 ${latency[25]!.toFixed(1)} ms, p90 ${latency[45]!.toFixed(1)} ms`);
  });

  it('what it produces decodes back to the frames (ffmpeg reading the Annex B stream)', async () => {
    const stream = new FfmpegLiveH264Encoder().open({ width: W, height: H, fps: 25 });
    const frames: EncodedVideoFrame[] = [];
    try {
      for (let k = 0; k < 30; k++) frames.push(await stream.encode(pattern(k)));
    } finally {
      stream.close();
    }
    const decoded = await collect(
      runFfmpeg({
        args: ['-f', 'h264', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
        stdin: (async function* () {
          yield annexB(frames);
        })(),
      }),
    );
    expect(decoded.length).to.equal(30 * W * H * 3);
    // the last frame is the last pattern, within compression error
    const last = pattern(29).rgb;
    const out = decoded.subarray(29 * W * H * 3);
    let se = 0;
    for (let i = 0; i < last.length; i++) se += (last[i]! - out[i]!) ** 2;
    const psnr = 10 * Math.log10((255 * 255) / (se / last.length));
    expect(psnr, `PSNR ${psnr.toFixed(1)} dB`).to.be.above(25);
  });

  it('close() stops ffmpeg and rejects what is pending; a frame of the wrong size is refused', async () => {
    let pid = 0;
    const stream = new FfmpegLiveH264Encoder({ onSpawn: (p) => (pid = p) }).open({ width: W, height: H, fps: 25 });
    await stream.encode(pattern(0));
    let refused: unknown = null;
    await stream.encode({ rgb: new Uint8Array(10), width: 2, height: 2 }).catch((err: unknown) => (refused = err));
    expect(String(refused)).to.match(/bytes/);
    const pending = stream.encode(pattern(1)).catch((err: unknown) => err);
    stream.close();
    expect(await pending).to.be.instanceOf(Error);
    await waitUntilGone(pid);
    expect(await stream.encode(pattern(2)).catch((err: unknown) => err)).to.be.instanceOf(Error);
  });
});
