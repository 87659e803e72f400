// Helpers shared by the voices end-to-end tests and the voices benchmark (not a test file itself).
import { json, postJson, type JsonResponse } from '../helpers/http.js';

export interface Endpoint {
  baseUrl: string;
}

/** Speech from the server itself: a convenient source of real audio in any format. */
export async function speechBytes(t: Endpoint, key: string, body: Record<string, unknown>): Promise<Buffer> {
  const res = await postJson(`${t.baseUrl}/v1/audio/speech`, body, key);
  if (res.status !== 200) throw new Error(`speech failed ${res.status}: ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

export const REFERENCE_TEXT =
  'When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. The rainbow is a division of white light into many beautiful colors.';

export async function registerJson(t: Endpoint, key: string | null, body: unknown): Promise<JsonResponse> {
  return json(await postJson(`${t.baseUrl}/v1/audio/voices`, body, key));
}

export async function registerForm(t: Endpoint, key: string | null, form: FormData): Promise<JsonResponse> {
  return json(
    await fetch(`${t.baseUrl}/v1/audio/voices`, { method: 'POST', headers: key ? { Authorization: `Bearer ${key}` } : {}, body: form }),
  );
}

export async function call(t: Endpoint, method: 'GET' | 'DELETE', path: string, key: string | null): Promise<JsonResponse> {
  return json(await fetch(`${t.baseUrl}${path}`, { method, headers: key ? { Authorization: `Bearer ${key}` } : {} }));
}

/** A mono 16-bit WAV file of the given samples. */
export { wavFile } from '../helpers/wav.js';

export const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
export const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
export const VOICE_ID = /^voice_[0-9a-f]{32}$/;

/**
 * A higher, smaller-sounding speaker made from real speech: resampling by `factor` raises pitch and
 * formants together (a shorter vocal tract), then the tempo is restored. Uses the real ffmpeg.
 */
export async function shiftSpeaker(wav: Uint8Array, factor: number): Promise<Buffer> {
  const { spawn } = await import('node:child_process');
  const ffmpeg = (await import('@ffmpeg-installer/ffmpeg')).default;
  return new Promise((resolve, reject) => {
    const p = spawn(ffmpeg.path, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      'pipe:0',
      '-af',
      `asetrate=24000*${factor},aresample=24000,atempo=${(1 / factor).toFixed(6)}`,
      '-f',
      'wav',
      '-ac',
      '1',
      'pipe:1',
    ]);
    const out: Buffer[] = [];
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited ${code}`))));
    p.stdin.end(Buffer.from(wav));
  });
}
