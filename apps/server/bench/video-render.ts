import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import type { PcmAudio, VideoFrame } from '@svc/core';
import { FfmpegVideoEncoder, avcCodecString } from '@svc/adapters-media';
import { LandmarkAvatarRenderer } from '@svc/adapters-avatar';
import { readWav } from '@svc/adapters-runtime';
import { percentile, round } from './harness.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const CLIPS = ['0870', '0880', '0890', '0920', '0930'];

/** ~27 s of real speech (the five LibriVox sentences with half-second pauses), 16 kHz. */
function speech(): PcmAudio {
  const parts = CLIPS.map((id) => readWav(readFileSync(join(LIBRIVOX, `sense_and_sensibility_01_austen_64kb-${id}.wav`))).samples);
  const pause = new Int16Array(8000);
  const out = new Int16Array(parts.reduce((n, p) => n + p.length + pause.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length + pause.length;
  }
  return { samples: out, sampleRate: 16000 };
}

/**
 * `npm run bench -- video-render`: the talking head alone (no server): prepare one photo, then
 * render (in its worker thread) + encode ~27 s of speech at 640x640 into fragmented MP4, as a job
 * would. Reports frames per second end to end, the warp's ms per frame (p50/p95, on this thread),
 * time to the first fragment and the process memory while it runs (frames stream through: nothing
 * grows with the clip's length).
 */
export async function benchVideoRender(): Promise<Record<string, number | string>> {
  const require = createRequire(import.meta.url);
  const photo = readFileSync(join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample5.jpg'));
  const audio = speech();
  const renderer = new LandmarkAvatarRenderer();
  const load = loadavg()[0]!;
  const coldStart = performance.now();
  await renderer.warmUp();
  const warmUpMs = performance.now() - coldStart;
  let t = performance.now();
  const avatar = await renderer.prepare(photo, '640x640');
  const prepareMs = performance.now() - t;

  // the warp alone, frame by frame on this thread (what one frame costs)
  const inThread = await new LandmarkAvatarRenderer({ renderThreads: 0 }).prepare(photo, '640x640');
  const renderOnly: number[] = [];
  t = performance.now();
  let last = t;
  for await (const _ of inThread.render({ audio: { samples: audio.samples.subarray(0, 16000 * 8), sampleRate: 16000 } })) {
    const now = performance.now();
    renderOnly.push(now - last);
    last = now;
  }
  const renderOnlyFps = renderOnly.length / ((performance.now() - t) / 1000);

  // render + encode, as a job does
  const frameMs: number[] = [];
  const baseline = process.memoryUsage();
  let peakRss = baseline.rss;
  let peakHeap = baseline.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 50);
  const timedFrames = async function* (frames: AsyncIterable<VideoFrame>): AsyncGenerator<VideoFrame> {
    let previous = performance.now();
    for await (const f of frames) {
      const now = performance.now();
      frameMs.push(now - previous);
      yield f;
      previous = performance.now();
    }
  };
  let bytes = 0;
  let firstFragmentMs = 0;
  let codec = '';
  const head: Uint8Array[] = [];
  t = performance.now();
  const encoder = new FfmpegVideoEncoder();
  for await (const chunk of encoder.encodeFragmentedMp4(timedFrames(avatar.render({ audio })), audio, {
    fps: avatar.fps,
    width: avatar.width,
    height: avatar.height,
  })) {
    if (!codec && head.length < 4) {
      head.push(chunk);
      codec = avcCodecString(Buffer.concat(head)) ?? '';
    }
    bytes += chunk.byteLength;
    if (!firstFragmentMs && bytes > 4096) firstFragmentMs = performance.now() - t;
  }
  const totalS = (performance.now() - t) / 1000;
  clearInterval(sampler);
  await renderer.close();
  const seconds = audio.samples.length / audio.sampleRate;
  return {
    'machine load (1 min average, 2 cores)': round(load, 2),
    'face-api WASM + weights load (ms, once per process)': round(warmUpMs, 0),
    'prepare: decode + detect + frame + landmarks (ms)': round(prepareMs, 0),
    'render only, one thread (fps, 640x640)': round(renderOnlyFps, 1),
    'render only ms/frame p50 / p95': `${round(percentile(renderOnly, 50), 1)} / ${round(percentile(renderOnly, 95), 1)}`,
    'clip (s)': round(seconds, 2),
    frames: frameMs.length,
    'render (worker thread) + encode (fps, 640x640)': round(frameMs.length / totalS, 1),
    'render + encode x real time': round(seconds / totalS, 2),
    'frame pull ms p50 / p95 (frames come in batches of 5)': `${round(percentile(frameMs, 50), 1)} / ${round(percentile(frameMs, 95), 1)}`,
    'time to first fragment (ms)': round(firstFragmentMs, 0),
    'fMP4 size (KB)': round(bytes / 1024, 0),
    codec: codec,
    'peak RSS during the job (MB)': round(peakRss / 2 ** 20, 0),
    'RSS growth over the job (MB)': round((peakRss - baseline.rss) / 2 ** 20, 0),
    'peak JS heap growth (MB)': round((peakHeap - baseline.heapUsed) / 2 ** 20, 0),
  };
}
