import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import type { VideoSize } from '@svc/core';
import { FfmpegLiveH264Encoder, LandmarkAvatarRenderer, LandmarkLiveAvatarRenderer, readWav } from '@svc/adapters-inference';
import { percentile, round } from './harness.js';

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';
const FRAMES = 150;
const FPS = 25;

/** CPU seconds a process has used so far (utime + stime of /proc/<pid>/stat, clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * `npm run bench -- live-avatar`: what one live avatar call costs, load-independently: the CPU
 * time of posing + warping one frame (on this thread) and of encoding it (the call's libx264
 * ffmpeg, from /proc), for FRAMES frames of a face speaking real speech, at each size. From those:
 * the cores an avatar call's video takes at 25 fps and how many fit on 2 cores (video only; the
 * voice loop's own cost is in voice-loop). Wall times (p50/p95) are reported too, with the load.
 */
export async function benchLiveAvatar(): Promise<Record<string, number | string>> {
  const require = createRequire(import.meta.url);
  const photo = readFileSync(join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg'));
  const speech = readWav(readFileSync(CLIP));
  const faces = new LandmarkAvatarRenderer({ renderThreads: 0 });
  const live = new LandmarkLiveAvatarRenderer(faces, { renderThreads: 0 });
  const out: Record<string, number | string> = { loadAverageBefore: round(loadavg()[0]!, 1) };
  for (const size of ['640x640', '640x480'] as VideoSize[]) {
    const avatar = await live.open(photo, { size });
    avatar.speak(speech.samples, speech.sampleRate, 0);
    let pid = 0;
    const stream = new FfmpegLiveH264Encoder({ onSpawn: (p) => (pid = p) }).open({ width: avatar.width, height: avatar.height, fps: FPS });
    const renderWall: number[] = [];
    const encodeWall: number[] = [];
    let renderCpuUs = 0;
    let bytes = 0;
    let encodeCpuStart = -1;
    for (let n = 0; n < FRAMES; n++) {
      const cpu = process.cpuUsage();
      let t = performance.now();
      const frame = await avatar.frame(300 + (n * 1000) / FPS);
      renderWall.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      renderCpuUs += used.user + used.system;
      t = performance.now();
      const encoded = await stream.encode(frame);
      encodeWall.push(performance.now() - t);
      if (encodeCpuStart < 0 && pid) encodeCpuStart = processCpuMs(pid); // after ffmpeg's start-up
      bytes += encoded.nalUnits.reduce((s, u) => s + u.length, 0);
    }
    const encodeCpuMs = pid ? (processCpuMs(pid) - encodeCpuStart) / (FRAMES - 1) : NaN;
    stream.close();
    avatar.close();
    const renderCpuMs = renderCpuUs / 1000 / FRAMES;
    const coresAt25 = ((renderCpuMs + encodeCpuMs) * FPS) / 1000;
    const key = size.replace('x', '_');
    Object.assign(out, {
      [`${key}_renderCpuMsPerFrame`]: round(renderCpuMs, 2),
      [`${key}_encodeCpuMsPerFrame`]: round(encodeCpuMs, 2),
      [`${key}_coresPerCallAt25fps`]: round(coresAt25, 3),
      [`${key}_videoCallsOn2Cores`]: Math.floor(2 / coresAt25),
      [`${key}_renderWallP50Ms`]: round(percentile(renderWall, 50), 1),
      [`${key}_renderWallP95Ms`]: round(percentile(renderWall, 95), 1),
      [`${key}_encodeWallP50Ms`]: round(percentile(encodeWall, 50), 1),
      [`${key}_kbps`]: round((bytes * 8 * FPS) / FRAMES / 1000, 0),
    });
  }
  await live.close();
  await faces.close();
  out.loadAverageAfter = round(loadavg()[0]!, 1);
  return out;
}
