import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { getJson, postJson } from '../helpers/http.js';

const require = createRequire(import.meta.url);

/** A sample photo shipped inside @vladmandic/face-api (one face, JPEG). */
export function samplePhoto(n = 1): Buffer {
  const root = dirname(require.resolve('@vladmandic/face-api/package.json'));
  return readFileSync(join(root, 'demo', `sample${n}.jpg`));
}

export const dataUri = (bytes: Uint8Array, type: string): string => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

export interface Probe {
  width: number;
  height: number;
  frames: number;
  /** Seconds of decoded audio. */
  audioSeconds: number;
  videoCodec: string;
}

/** Decodes an MP4 with the real ffmpeg: every video frame and the whole audio track. */
export async function probeMp4(bytes: Uint8Array): Promise<Probe> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-video-probe-'));
  try {
    const file = join(dir, 'v.mp4');
    writeFileSync(file, bytes);
    const video = await run(['-hide_banner', '-i', file, '-map', '0:v:0', '-f', 'null', '-']);
    const stream = /Video: (\w+)[^\n]*?, (\d{2,5})x(\d{2,5})/.exec(video.stderr);
    const frames = [...video.stderr.matchAll(/frame=\s*(\d+)/g)].map((m) => Number(m[1])).at(-1);
    if (!stream || frames === undefined) throw new Error(`ffmpeg could not read the video: ${video.stderr.slice(-500)}`);
    const audio = await run([
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      file,
      '-map',
      '0:a:0',
      '-f',
      's16le',
      '-ac',
      '1',
      '-ar',
      '16000',
      'pipe:1',
    ]);
    return {
      videoCodec: stream[1]!,
      width: Number(stream[2]),
      height: Number(stream[3]),
      frames,
      audioSeconds: audio.stdout.length / 2 / 16000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(args: string[]): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(ffmpeg.path, args);
    const out: Buffer[] = [];
    let err = '';
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0 ? resolve({ stdout: Buffer.concat(out), stderr: err }) : reject(new Error(`ffmpeg exited ${code}: ${err.slice(-500)}`)),
    );
  });
}

/** Top-level MP4 box types in order (ftyp, moov, moof, mdat, ...). */
export function topLevelBoxes(bytes: Uint8Array): string[] {
  const boxes: string[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + 8 <= bytes.length;) {
    const size = view.getUint32(at);
    boxes.push(String.fromCharCode(...bytes.subarray(at + 4, at + 8)));
    if (size < 8) break;
    at += size;
  }
  return boxes;
}

/** Polls GET /v1/videos/{id} until it is finished; returns every record seen. */
export async function pollVideo(baseUrl: string, key: string, id: string, timeoutMs = 120_000): Promise<any[]> {
  const seen: any[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await getJson(`${baseUrl}/v1/videos/${id}`, key);
    if (res.status !== 200) throw new Error(`GET video answered ${res.status}: ${JSON.stringify(res.body)}`);
    seen.push(res.body);
    if (res.body.status === 'completed' || res.body.status === 'failed') return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`video ${id} did not finish in ${timeoutMs} ms: ${JSON.stringify(seen.at(-1))}`);
}

/**
 * What a poller saw going backwards, or null: once a video has started it is never `queued` again,
 * and its progress never decreases (docs/video.md: "never backwards").
 */
export function wentBackwards(seen: Array<{ status: string; progress: number }>): string | null {
  const trace = seen.map((v) => `${v.status} ${v.progress}`).join(', ');
  let started = false;
  for (let i = 0; i < seen.length; i++) {
    const v = seen[i]!;
    if (started && v.status === 'queued') return `queued again after it started: ${trace}`;
    if (i > 0 && v.progress < seen[i - 1]!.progress) return `progress went from ${seen[i - 1]!.progress} to ${v.progress}: ${trace}`;
    started ||= v.status === 'in_progress';
  }
  return null;
}

export const createVideo = (baseUrl: string, key: string, body: unknown) => postJson(`${baseUrl}/v1/videos`, body, key);

/** Child processes of this process (the server runs in it): ffmpeg must not outlive its job. */
export async function childProcesses(): Promise<string[]> {
  const out = await new Promise<string>((resolve) => {
    const p = spawn('ps', ['-e', '-o', 'pid=,ppid=,stat=,comm=']);
    let text = '';
    p.stdout.on('data', (d: Buffer) => (text += d.toString()));
    p.on('close', () => resolve(text));
  });
  // This process's descendants (ffmpeg runs under the process launcher), zombies and ps itself left out.
  const rows = out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((r) => r.length >= 4);
  const parentOf = new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));
  const descends = (pid: number): boolean => {
    for (let p = parentOf.get(pid), hops = 0; p !== undefined && hops < 8; p = parentOf.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  return rows
    .filter((r) => descends(Number(r[0])) && !r[2]!.startsWith('Z') && r[3] !== 'ps')
    .map((r) => `${r[0]} ${r.slice(3).join(' ')}`);
}

/** About 10 s of speech from the default voice. */
export const TEN_SECONDS =
  'The morning train was late again, so we walked along the river to the old bridge and watched the boats go by while the city woke up around us. Then we had breakfast by the window and talked about the week ahead.';
