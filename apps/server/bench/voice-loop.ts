import { loadavg } from 'node:os';
import { wordErrorRate } from '../test/helpers/wer.js';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';
import { WebRtcTestClient } from '../test/helpers/webrtc-client.js';
import { dataUri, samplePhoto } from '../test/video/video-helpers.js';
import { percentile, round } from './harness.js';
import { cpuSince, treeCpu, type TreeCpu } from './process-cpu.js';
import { converse, librivoxClips, SILENCE_DURATION_MS, type CallResult } from './voice-caller.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The realtime voice loop with the real engines, as people use it, and the server's capacity
 * curve: conversations of five turns (the LibriVox sentences, 1.5 s of silence after each while
 * the reply starts) streamed in at real-time pace (`SVC_BENCH_APPEND_MS`, default 20 ms appends, as
 * browsers and SDKs send), server VAD, warm streaming pocketsphinx, the embedded model and spoken
 * replies (24 kHz pcm). The server runs as its own PROCESS (`node dist/src/main.js`, as in
 * production), so its CPU (and its decoders') is measured apart from these clients' and its
 * admission sees only its own load.
 *
 * Per level (`SVC_BENCH_VOICE_SESSIONS`, default 1,5,10,16): `speech_stopped` -> first audio delta
 * p50 / p95, turns answered / explained by an `error` / reply cut off by the next sentence / silently missed, sessions refused (close
 * code and reason), WER, CPU per admitted session-second (server event loop and threads, decoders),
 * /healthz latency (event-loop lag as a client sees it) and the load average at start and end.
 * Any other SVC_* variable in the environment is passed to the server (e.g. SVC_ASR_DECODERS).
 *
 * `SVC_BENCH_AVATAR_CALL=640x480` (or 640x640) places one live avatar call (a werift peer that
 * receives the H.264 track, face-api's sample photo) before the levels and keeps it up through
 * them: the voice figures are then those beside an avatar call, and each level reports the frames
 * per second that call received.
 */
export async function benchVoiceLoop(): Promise<Record<string, number | string>> {
  const appendMs = Number(process.env.SVC_BENCH_APPEND_MS ?? 20);
  const levels = (process.env.SVC_BENCH_VOICE_SESSIONS ?? '1,5,10,16').split(',').map(Number);
  const passed = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => k.startsWith('SVC_') && !k.startsWith('SVC_BENCH_') && v !== undefined),
  ) as Record<string, string>;
  const server = await startServerProcess({
    env: {
      SVC_LOG_LEVEL: 'warn',
      SVC_RATE_LIMIT_PER_MINUTE: '0',
      // Counts are not what is measured here: capacity is the server's own decision.
      SVC_REALTIME_MAX_SESSIONS: '2000',
      SVC_REALTIME_MAX_SESSIONS_PER_KEY: '2000',
      // A recognizer that could not start fails the benchmark instead of leaving turns untranscribed.
      SVC_ASR_ENGINE: 'pocketsphinx',
      SVC_ASR_DECODERS: '16',
      SVC_ASR_WARM_DECODERS: String(Math.min(16, Math.max(...levels))),
      // Loaded before the first level (engines load on first use by default): the curve measures warm decoders and VAD.
      SVC_REALTIME_WARM_UP: 'blocking',
      // The server's own admission decides who it can serve (the excess is refused and counted).
      SVC_REALTIME_CAPACITY: 'auto',
      // the avatar call's peer sends nothing the liveness check hears (no microphone, no events)
      ...(process.env.SVC_BENCH_AVATAR_CALL ? { SVC_WEBRTC_PEER_TIMEOUT_MS: '600000' } : {}),
      ...passed,
    },
    nodeArgs: process.env.SVC_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SVC_BENCH_CPU_PROF}`] : [],
    readyTimeoutMs: 180_000,
    // Another build of the server (e.g. main's, to compare before / after under the same load).
    ...(process.env.SVC_BENCH_SERVER_ENTRY ? { entry: process.env.SVC_BENCH_SERVER_ENTRY } : {}),
  });
  const out: Record<string, number | string> = { 'append size (ms)': appendMs, 'server pid': server.pid };
  let avatar: { client: WebRtcTestClient; settledMs: number } | null = null;
  try {
    const speech = librivoxClips();
    if (process.env.SVC_BENCH_AVATAR_CALL) {
      await settle(server.pid);
      avatar = await avatarCallBeside(server, process.env.SVC_BENCH_AVATAR_CALL);
      out[`avatar call beside (${process.env.SVC_BENCH_AVATAR_CALL}): server CPU for it alone (ms per s)`] = round(avatar.settledMs / 2, 0);
    }
    for (const sessions of levels) {
      // A server that has just started is still warming engines in its threads (the avatar models:
      // seconds of CPU); a level measured then would charge that to its sessions.
      out[`${sessions} session${sessions === 1 ? '' : 's'}: waited for the server to settle (s)`] = await settle(
        server.pid,
        avatar?.settledMs,
      );
      const framesBefore = avatar ? frames(avatar.client) : 0;
      const levelStarted = performance.now();
      // A single conversation runs three times (15 turns) so its p95 means something.
      const runs = sessions === 1 ? 3 : 1;
      const load = loadavg()[0]!;
      const audioBefore = await audioTotals(server);
      const cpuBefore = treeCpu(server.pid);
      const clientBefore = process.cpuUsage();
      const poller = pollHealth(server);
      const calls: CallResult[] = [];
      for (let run = 0; run < runs; run++) {
        calls.push(
          ...(await Promise.all(
            Array.from({ length: sessions }, async (_, i) => {
              // Staggered like real callers, so turns do not all end in the same 100 ms.
              await sleep((i * 1500) / sessions);
              // Each caller starts at another sentence.
              return converse(server, [...speech.slice(i % speech.length), ...speech.slice(0, i % speech.length)], appendMs);
            }),
          )),
        );
      }
      const health = await poller.stop();
      const cpu = cpuSince(cpuBefore, treeCpu(server.pid));
      const client = process.cpuUsage(clientBefore);
      const audio = await audioTotals(server);
      const decodedPerInput = (audio.decoded - audioBefore.decoded) / Math.max(1e-9, audio.input - audioBefore.input);
      const vadFramesPerRun = (audio.vadFrames - audioBefore.vadFrames) / Math.max(1, audio.vadRuns - audioBefore.vadRuns);
      report(out, sessions, calls, {
        load,
        loadEnd: loadavg()[0]!,
        cpu,
        clientMs: (client.user + client.system) / 1000,
        health,
        decodedPerInput,
        vadFramesPerRun,
      });
      if (avatar)
        out[`${sessions} session${sessions === 1 ? '' : 's'}: avatar call beside: frames received per second`] = round(
          ((frames(avatar.client) - framesBefore) * 1000) / (performance.now() - levelStarted),
          1,
        );
      // Sessions close and decoders settle before the next level.
      await sleep(2000);
    }
    const warnings = server
      .logs()
      .split('\n')
      .filter((l) => l.includes('"level":40'));
    out['server warnings logged'] = warnings.length;
  } catch (err) {
    // A server that died mid-level fails the next request with a bare "fetch failed": say what it said.
    if (!server.alive())
      throw new Error(`The server process exited (${JSON.stringify(await server.exited(1000))}); its last log lines:\n${server.tail(30)}`, {
        cause: err,
      });
    throw err;
  } finally {
    await avatar?.client.close();
    await server.stop();
  }
  return out;
}

/** Frames of the avatar's H.264 track a client received (one RTP marker per frame). */
const frames = (client: WebRtcTestClient) => client.videoRtp.filter((p) => p.marker).length;

/**
 * One live avatar call on `server`, frames flowing; returns it with the server's CPU over 2 s with
 * it alone (the settle threshold of the levels: the server is settled when it uses no more than that).
 */
async function avatarCallBeside(server: ServerProcess, size: string): Promise<{ client: WebRtcTestClient; settledMs: number }> {
  const client = new WebRtcTestClient({ video: true });
  const session = {
    type: 'realtime',
    output_modalities: ['text'],
    audio: { input: { turn_detection: null } },
    avatar: { ref_image: dataUri(samplePhoto(1), 'image/jpeg'), size },
  };
  const res = await client.call(server.url, server.apiKey, session);
  if (res.status !== 201) throw new Error(`the avatar call was refused: ${res.status} ${res.body}`);
  await client.waitUntil(() => frames(client) > 50, 60_000, "the avatar call's first 50 frames");
  const before = treeCpu(server.pid);
  await sleep(2000);
  const used = cpuSince(before, treeCpu(server.pid));
  return { client, settledMs: used.process + used.children + 100 };
}

interface LevelMeasures {
  load: number;
  loadEnd: number;
  cpu: TreeCpu;
  clientMs: number;
  health: number[];
  /** Seconds of audio the decoders decoded per second of input audio (the server's metrics). */
  decodedPerInput: number;
  /** Voice activity frames per model run (sessions speaking at once share runs). */
  vadFramesPerRun: number;
}

function report(out: Record<string, number | string>, sessions: number, calls: CallResult[], m: LevelMeasures): void {
  const label = `${sessions} session${sessions === 1 ? '' : 's'}`;
  const admitted = calls.filter((c) => !c.refused);
  const refused = calls.filter((c) => c.refused);
  const turns = admitted.flatMap((c) => c.turns);
  const sentences = admitted.reduce((n, c) => n + c.reference.length, 0);
  out[`${label}: load average (1 min) at start / end`] = `${round(m.load, 1)} / ${round(m.loadEnd, 1)}`;
  out[`${label}: sessions admitted / refused`] =
    `${admitted.length} / ${refused.length}${refused.length ? ` (${[...new Set(refused.map((c) => `${c.refused!.code} "${c.refused!.reason}"`))].join(', ')})` : ''}`;
  if (turns.length > 0) {
    const stopped = turns.map((x) => x.fromStopped);
    const end = turns.map((x) => x.fromSpeechEnd);
    out[`${label}: speech_stopped -> first audio delta p50 / p95 (ms, n=${turns.length})`] =
      `${round(percentile(stopped, 50))} / ${round(percentile(stopped, 95))}`;
    out[`${label}: end of speech -> first audio delta p50 / p95 (ms, silence_duration_ms ${SILENCE_DURATION_MS})`] =
      `${round(percentile(end, 50))} / ${round(percentile(end, 95))}`;
    out[`${label}: speech_stopped -> transcript p50 (ms)`] = round(percentile(turns.map((x) => x.transcript).filter(Number.isFinite), 50));
  }
  const explained = admitted.reduce((n, c) => n + c.explained, 0);
  const missed = admitted.reduce((n, c) => n + c.missed, 0);
  const interrupted = admitted.reduce((n, c) => n + c.interrupted, 0);
  out[`${label}: turns answered / with an error event / reply not started before the next sentence / silently missed`] =
    `${turns.length} / ${explained} / ${interrupted} / ${missed} of ${sentences}`;
  const errors = admitted.flatMap((c) => c.errors);
  if (errors.length)
    out[`${label}: error events`] = [...new Set(errors)].map((code) => `${code} x${errors.filter((e) => e === code).length}`).join(', ');
  const wer = wordErrorRate(admitted.flatMap((c) => c.reference).join(' '), admitted.flatMap((c) => c.heard).join(' '));
  out[`${label}: WER of the turns' transcripts`] = `${round(wer * 100, 1)} %`;
  const sessionSeconds = admitted.reduce((s, c) => s + c.streamedSeconds, 0);
  if (sessionSeconds > 0) {
    const per = (ms: number) => round(ms / sessionSeconds, 1);
    const { process: node, children: decoders } = m.cpu;
    out[`${label}: server CPU per session-second, total / node process / decoders (ms)`] =
      `${per(node + decoders)} / ${per(node)} / ${per(decoders)}`;
    out[`${label}: node process by thread (ms per session-second)`] = Object.entries(m.cpu.threads)
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => `${name} ${per(ms)}`)
      .join(', ');
    out[`${label}: benchmark clients' own CPU per session-second (ms)`] = per(m.clientMs);
    out[`${label}: audio decoded per second of input audio (s)`] = round(m.decodedPerInput, 3);
    out[`${label}: VAD frames per model run`] = round(m.vadFramesPerRun, 2);
  }
  if (m.health.length)
    out[`${label}: /healthz latency p50 / p99 / max (ms, every 200 ms)`] =
      `${round(percentile(m.health, 50))} / ${round(percentile(m.health, 99))} / ${round(Math.max(...m.health))}`;
}

/** Waits (up to 2 minutes) until the server uses under `maxMs` of CPU over 2 s (5 % of a core); returns the seconds waited. */
async function settle(pid: number, maxMs = 100): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 120_000) {
    const before = treeCpu(pid);
    await sleep(2000);
    const used = cpuSince(before, treeCpu(pid));
    if (used.process + used.children < maxMs) break;
  }
  return round((performance.now() - started) / 1000, 0);
}

/** The server's totals of input audio and of audio its decoders decoded (seconds, from /metrics). */
async function audioTotals(server: ServerProcess): Promise<{ input: number; decoded: number; vadFrames: number; vadRuns: number }> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${server.apiKey}` } })).text();
  const value = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    input: value('svc_realtime_input_audio_seconds_total'),
    decoded: value('svc_asr_decoded_audio_seconds_total'),
    vadFrames: value('svc_vad_frames_total'),
    vadRuns: value('svc_vad_runs_total'),
  };
}

/** Polls /healthz every 200 ms: its latency is the server's event-loop lag as a client sees it. */
function pollHealth(server: ServerProcess): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        await (await fetch(`${server.url}/healthz`)).text();
        latencies.push(performance.now() - t0);
      } catch {
        // counted as missing
      }
      await sleep(200);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}
