import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { megabytes, processTreeMemory } from '../test/helpers/process-memory.js';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';
import { dataUri, samplePhoto } from '../test/video/video-helpers.js';
import { round } from './harness.js';
import { TEXT_300 } from './speech.js';

/** Time for anything started in the background to settle before RSS is read. */
const SETTLE_MS = 4000;
const LIBRIVOX_WAV = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';
const WARM_EVERYTHING = {
  SVC_SPEECH_WARM_UP: 'blocking',
  SVC_VIDEO_WARM_UP: 'blocking',
  SVC_REALTIME_WARM_UP: 'blocking',
  SVC_VOICE_WARM_UP: 'blocking',
};

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
const treeMb = (server: ServerProcess) => megabytes(processTreeMemory(server.pid).rssBytes);
const describeTree = (server: ServerProcess) => {
  const tree = processTreeMemory(server.pid);
  const helpers = tree.processes.length - 1;
  const node = tree.processes[0]!;
  // Helpers' PSS too: forked speech decoders share their model, which RSS counts in each.
  const helperMemory = `${megabytes(tree.rssBytes - node.rssBytes)} MB (PSS ${megabytes(tree.pssBytes - node.pssBytes)} MB)`;
  return `${megabytes(tree.rssBytes)} MB (node ${megabytes(node.rssBytes)} MB, ${node.threads} threads${helpers ? `, ${helpers} helper process(es) ${helperMemory}` : ''})`;
};

async function post(server: ServerProcess, path: string, body: unknown): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${path} answered ${res.status} ${answer.toString('utf8', 0, 300)}`);
  return performance.now() - started;
}

async function transcribe(server: ServerProcess): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(LIBRIVOX_WAV)], { type: 'audio/wav' }), 'clip.wav');
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.apiKey}` },
    body: form,
  });
  const answer = await res.text();
  if (res.status !== 200) throw new Error(`transcription answered ${res.status} ${answer.slice(0, 300)}`);
  return performance.now() - started;
}

/** One server process: RSS after start, then after the first request of each capability (and what that request took). */
async function firstUses(env: Record<string, string>): Promise<Record<string, string>> {
  const server = await startServerProcess({ env, readyTimeoutMs: 180_000 });
  try {
    await settle();
    const out: Record<string, string> = { idle: describeTree(server) };
    const steps: Array<[string, () => Promise<number>]> = [
      ['speech (300 chars, mp3)', () => post(server, '/v1/audio/speech', { input: TEXT_300 })],
      [
        'speech in French (espeak-ng)',
        () =>
          post(server, '/v1/audio/speech', { input: 'Bonjour, je suis une voix de synthèse.', voice: 'espeak-fr', response_format: 'pcm' }),
      ],
      ['transcription (pocketsphinx decoder)', () => transcribe(server)],
      [
        'video stream, new photo (detector + render threads)',
        () =>
          post(server, '/v1/videos/stream', {
            ref_image: dataUri(samplePhoto(2), 'image/jpeg'),
            input_tts: { input: 'Hello there, this is a short test of the avatar.' },
          }),
      ],
    ];
    for (const [what, run] of steps) {
      const before = treeMb(server);
      try {
        const ms = await run();
        await settle();
        out[`after first ${what}`] = `${describeTree(server)}: +${treeMb(server) - before} MB, request ${round(ms / 1000, 2)} s`;
      } catch (err) {
        out[`after first ${what}`] = `failed: ${String(err)}`; // the other capabilities are still measured
      }
    }
    return out;
  } finally {
    await server.stop();
  }
}

/** RSS of one process started with `env`, once it has settled (no request). */
async function idle(env: Record<string, string>): Promise<string> {
  const server = await startServerProcess({ env, readyTimeoutMs: 180_000 });
  try {
    await settle();
    return describeTree(server);
  } finally {
    await server.stop();
  }
}

/**
 * `npm run bench -- footprint`: what `npm start` holds before its first request (node process +
 * helper processes, RSS from /proc: independent of the machine's load), with the defaults and with
 * every capability warmed at start, then what each capability's first request adds. With
 * SVC_BENCH_REDIS_URL (or SVC_TEST_REDIS_URL) it also starts an `api` and a `worker` process on
 * that Redis (the split deployment) and reads them idle.
 */
export async function benchFootprint(): Promise<Record<string, number | string>> {
  const results: Record<string, number | string> = {};
  const redis = process.env.SVC_BENCH_REDIS_URL ?? process.env.SVC_TEST_REDIS_URL;
  if (redis) {
    for (const role of ['api', 'worker']) {
      const prefix = `svc-bench:${randomUUID()}:`;
      results[`role ${role}, defaults: idle`] = await idle({ SVC_ROLE: role, SVC_REDIS_URL: redis, SVC_REDIS_KEY_PREFIX: prefix });
      results[`role ${role}, SVC_*_WARM_UP=blocking: idle`] = await idle({
        ...WARM_EVERYTHING,
        SVC_ROLE: role,
        SVC_REDIS_URL: redis,
        SVC_REDIS_KEY_PREFIX: prefix,
      });
    }
  } else {
    results['roles api / worker'] = 'skipped (set SVC_BENCH_REDIS_URL)';
  }
  for (const [label, env] of [
    ['defaults', {}],
    ['every capability warmed at start (SVC_*_WARM_UP=blocking)', WARM_EVERYTHING],
  ] as const) {
    for (const [k, v] of Object.entries(await firstUses({ ...env }))) results[`${label}: ${k}`] = v;
  }
  return results;
}
