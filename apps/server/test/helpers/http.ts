import { spawn } from 'node:child_process';
import ffmpeg from '@ffmpeg-installer/ffmpeg';

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** POST JSON with a bearer key (null: no Authorization header). */
export async function postJson(url: string, body: unknown, key: string | null, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    ...init,
    headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(init.headers ?? {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function json<T = any>(res: Response): Promise<JsonResponse<T>> {
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`expected JSON, got ${res.status}: ${text.slice(0, 200)}`);
  }
  return { status: res.status, headers: res.headers, body };
}

export async function getJson<T = any>(url: string, key: string | null): Promise<JsonResponse<T>> {
  return json<T>(await fetch(url, { headers: key ? { Authorization: `Bearer ${key}` } : {} }));
}

/** Decodes any audio bytes with the real ffmpeg to mono s16le at `rate`. */
export function decodeWithFfmpeg(bytes: Uint8Array, rate = 16000): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    const p = spawn(ffmpeg.path, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      'pipe:0',
      '-f',
      's16le',
      '-ac',
      '1',
      '-ar',
      String(rate),
      'pipe:1',
    ]);
    const out: Buffer[] = [];
    let err = '';
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`ffmpeg decode failed (${code}): ${err}`));
      const buf = Buffer.concat(out);
      resolve(new Int16Array(buf.buffer, buf.byteOffset, Math.floor(buf.length / 2)));
    });
    p.stdin.on('error', () => undefined);
    p.stdin.end(Buffer.from(bytes));
  });
}

export function rmsOf(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return samples.length ? Math.sqrt(sum / samples.length) / 32768 : 0;
}

export { childProcesses } from '@svc/adapters-testing';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reads a numeric sample from Prometheus text. A sample that is not there throws (listing the
 * samples of that name that are), so a renamed metric or label fails the test instead of reading 0.
 */
export function metricValue(text: string, name: string, labels = ''): number {
  const series = `${name}${labels ? `{${labels}}` : ''}`;
  const samples = text.split('\n').filter((l) => !l.startsWith('#'));
  const line = samples.find((l) => l.startsWith(`${series} `));
  if (!line) {
    const near = samples.filter((l) => l.startsWith(name)).map((l) => l.split(' ')[0]);
    throw new Error(`no metric sample ${series} (samples of ${name}: ${near.join(', ') || 'none'})`);
  }
  const value = Number(line.split(' ').at(-1));
  if (!Number.isFinite(value)) throw new Error(`metric sample ${series} is not a number: ${line}`);
  return value;
}
