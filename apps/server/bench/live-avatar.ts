import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { silentLogger, type VideoSize } from '@svc/core';
import { FfmpegLiveH264Encoder, OpusscriptOpusCodec } from '@svc/adapters-media';
import { LandmarkAvatarRenderer, LandmarkLiveAvatarRenderer } from '@svc/adapters-avatar';
import { readWav, resampleInt16 } from '@svc/adapters-runtime';
import { CallVideo, mediaClock, RtpAudioTrack, RtpVideoTrack } from '@svc/adapters-webrtc/media';
import { percentile, round } from './harness.js';

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';
const FRAMES = 150;
/** `SVC_BENCH_LIVE_AVATAR_SIZES=640x480` measures one size only. */
const SIZES = (process.env.SVC_BENCH_LIVE_AVATAR_SIZES ?? '640x480,640x640').split(',') as VideoSize[];
const FPS = 25;
/** The call pump's run: idle, then this much of the clip as the reply. */
const IDLE_MS = 3000;
const REPLY_MS = 5000;
/** The server's defaults: SVC_LIVE_AVATAR_LEAD_MS, SVC_REALTIME_AUDIO_LEAD_MS. */
const LEAD_MS = 160;
const AUDIO_LEAD_MS = 200;

/** CPU seconds a process has used so far (utime + stime of /proc/<pid>/stat, clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
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
  const threaded = new LandmarkLiveAvatarRenderer(faces, { renderThreads: 1 });
  try {
    for (const size of SIZES) Object.assign(out, await benchCallPump(threaded, photo, speech, size));
  } finally {
    await threaded.close();
  }
  for (const size of SIZES) {
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

/** CPU ms of this process (its main thread and the render thread) and of a child process. */
function cpuNow(childPid: number): { main: number; child: number } {
  const used = process.cpuUsage();
  return { main: (used.user + used.system) / 1000, child: childPid ? processCpuMs(childPid) : 0 };
}

/**
 * A call's video as the server runs it, without the network: CallVideo on the media clock (the
 * render thread, the call's libx264, frames handed to an RTP track at their time) and the reply
 * audio through the call's RtpAudioTrack (Opus, paced in real time). IDLE_MS of idle face, then
 * REPLY_MS of the clip written as synthesis writes a reply. Reports the frames sent per second (idle
 * and during the reply), frames skipped and late, the send lag, the event loop's delay, the reply's
 * first frame after its first audio (media clock), and the CPU per second of call.
 */
async function benchCallPump(
  live: LandmarkLiveAvatarRenderer,
  photo: Uint8Array,
  speech: { samples: Int16Array; sampleRate: number },
  size: VideoSize,
): Promise<Record<string, number | string>> {
  const avatar = await live.open(photo, { size });
  const reply = resampleInt16(speech.samples.subarray(0, Math.round((speech.sampleRate * REPLY_MS) / 1000)), speech.sampleRate, 48000);
  let pid = 0;
  const audio = new RtpAudioTrack({ sendRtp: () => undefined }, 111, {
    opus: new OpusscriptOpusCodec(),
    leadMs: AUDIO_LEAD_MS,
    now: () => mediaClock.now(),
  });
  const track = new RtpVideoTrack({ sendRtp: () => undefined }, 96, mediaClock.now());
  const video = new CallVideo(audio, track, {
    encoder: new FfmpegLiveH264Encoder({ onSpawn: (p) => (pid = p) }),
    clock: mediaClock,
    leadMs: LEAD_MS,
    logger: silentLogger,
  });
  const loop = monitorEventLoopDelay({ resolution: 5 });
  const load = loadavg()[0]!;
  video.show(avatar);
  video.onConnected();
  await sleep(500); // the encoder's start-up
  const cpuFrom = cpuNow(pid);
  const wallFrom = performance.now();
  loop.enable();
  await sleep(IDLE_MS);
  const playout = audio.open();
  const signal = new AbortController().signal;
  for (let i = 0; i < reply.length; i += 4800) await playout.write(reply.subarray(i, i + 4800), signal);
  await playout.finish();
  await sleep(500);
  loop.disable();
  const cpuTo = cpuNow(pid);
  const wallS = (performance.now() - wallFrom) / 1000;
  const stats = video.stats();
  video.close();
  audio.close();
  avatar.close();
  const first = stats.replies[0];
  const fps = (from: number, to: number) => (stats.sent.filter((f) => f.atMs >= from && f.atMs < to).length * 1000) / (to - from);
  const key = `call ${size}`;
  return {
    [`${key}: frames sent per second, idle / reply`]: first
      ? `${round(fps(first.audioAtMs - IDLE_MS + 500, first.audioAtMs - 200), 1)} / ${round(fps(first.audioAtMs, first.audioAtMs + REPLY_MS - 200), 1)}`
      : 'no reply seen',
    [`${key}: frames skipped / late / sent`]: `${stats.framesSkipped} / ${stats.framesLate} / ${stats.framesSent}`,
    [`${key}: render / encode wall p50 (ms)`]: `${stats.renderP50Ms} / ${stats.encodeP50Ms}`,
    [`${key}: send lag p50 / p95 (ms)`]: `${stats.sendLagP50Ms} / ${stats.sendLagP95Ms}`,
    [`${key}: event loop delay p50 / p99 (ms)`]: `${round(loop.percentile(50) / 1e6, 1)} / ${round(loop.percentile(99) / 1e6, 1)}`,
    [`${key}: first reply frame after first reply audio, RTP / sent (ms)`]: first
      ? `${round(first.frameAfterAudioMs, 0)} / ${round(first.sentAfterAudioMs, 0)}`
      : 'no reply seen',
    [`${key}: CPU per second of call, node (main + render thread) / encoder (ms)`]: `${Math.round((cpuTo.main - cpuFrom.main) / wallS)} / ${Math.round((cpuTo.child - cpuFrom.child) / wallS)}`,
    [`${key}: load average`]: round(load, 1),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
