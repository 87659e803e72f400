import { loadavg } from 'node:os';
import { startServerProcess } from '../test/helpers/server-process.js';
import { percentile, round } from './harness.js';
import { converse, librivoxClips, type TurnTiming } from './voice-caller.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Silence after each sentence: the reply starts (and is timed) before the caller speaks again. */
const PAUSE_MS = 4000;

/** The turn detections compared (session `turn_detection` objects). */
const MODES: Record<string, Record<string, unknown>> = {
  'server_vad (defaults)': { type: 'server_vad' },
  'semantic_vad (auto)': { type: 'semantic_vad' },
  'semantic_vad (high, SVC_REALTIME_SEMANTIC_EAGERNESS on)': { type: 'semantic_vad', eagerness: 'high' },
};

/**
 * `npm run bench -- turn-latency`: the pause a person hears, from the client's clock. Callers speak
 * the five LibriVox sentences (a human reader, real-time pace, 20 ms appends, 4 s of silence after
 * each, so that a reply starts before the next sentence even on a loaded machine) over the realtime
 * WebSocket with spoken replies; each turn is timed from the LAST LOUD 10 ms of the sentence (within
 * 30 dB of its loudest frame) to the reply's FIRST SOUND as the client plays it (the first sample at
 * or above -44 dBFS, deltas played back to back from the first one's arrival). Also
 * `speech_stopped` -> first delta and the reply's leading silence. Per mode (server_vad defaults,
 * semantic_vad auto, semantic_vad high with the operator opt-in) and per number of callers at once
 * (`SVC_BENCH_TURN_CALLERS`, default 1; `SVC_BENCH_TURN_RUNS` conversations each, default 1). The
 * server runs as its own process; `SVC_BENCH_SERVER_ENTRY` runs another build (main's, for before /
 * after in the same window).
 */
export async function benchTurnLatency(): Promise<Record<string, number | string>> {
  const levels = (process.env.SVC_BENCH_TURN_CALLERS ?? '1').split(',').map(Number);
  const runs = Number(process.env.SVC_BENCH_TURN_RUNS ?? 1);
  const entry = process.env.SVC_BENCH_SERVER_ENTRY;
  const server = await startServerProcess({
    env: {
      SVC_LOG_LEVEL: 'warn',
      SVC_RATE_LIMIT_PER_MINUTE: '0',
      SVC_REALTIME_MAX_SESSIONS: '2000',
      SVC_REALTIME_MAX_SESSIONS_PER_KEY: '2000',
      SVC_REALTIME_CAPACITY: 'off',
      SVC_ASR_ENGINE: 'pocketsphinx',
      SVC_REALTIME_WARM_UP: 'blocking',
      // A loaded machine's late transcripts are measured, not dropped.
      SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: '20000',
      // The opt-in is this build's; another build (main's) is started without it.
      ...(entry ? {} : { SVC_REALTIME_SEMANTIC_EAGERNESS: 'true' }),
    },
    readyTimeoutMs: 180_000,
    ...(entry ? { entry } : {}),
  });
  const out: Record<string, number | string> = { server: entry ?? 'this build' };
  try {
    const speech = librivoxClips();
    for (const callers of levels) {
      for (const [mode, turnDetection] of Object.entries(MODES)) {
        const label = `${callers} caller${callers === 1 ? '' : 's'}, ${mode}`;
        const load = loadavg()[0]!;
        const turns: TurnTiming[] = [];
        let sentences = 0;
        const outcomes = { explained: 0, interrupted: 0, missed: 0, errors: [] as string[] };
        for (let run = 0; run < runs; run++) {
          const calls = await Promise.all(
            Array.from({ length: callers }, async (_, i) => {
              await sleep((i * 1500) / callers);
              return converse(server, [...speech.slice(i % speech.length), ...speech.slice(0, i % speech.length)], 20, {
                turnDetection,
                pauseMs: PAUSE_MS,
              });
            }),
          );
          for (const c of calls) {
            turns.push(...c.turns);
            sentences += c.reference.length;
            outcomes.explained += c.explained;
            outcomes.interrupted += c.interrupted;
            outcomes.missed += c.missed;
            outcomes.errors.push(...c.errors);
          }
        }
        const heard = turns.map((t) => t.heard).filter(Number.isFinite);
        const stopped = turns.map((t) => t.fromStopped);
        const silence = turns.map((t) => t.leadingSilence).filter(Number.isFinite);
        out[`${label}: load average at start / end`] = `${round(load, 1)} / ${round(loadavg()[0]!, 1)}`;
        out[`${label}: last loud 10 ms -> first reply sound p50 / p95 (ms, n=${heard.length} of ${sentences})`] = heard.length
          ? `${round(percentile(heard, 50))} / ${round(percentile(heard, 95))}`
          : 'none';
        out[`${label}: turns answered / with an error / reply not started before the next sentence / missed`] =
          `${turns.length} / ${outcomes.explained} / ${outcomes.interrupted} / ${outcomes.missed} of ${sentences}${outcomes.errors.length ? ` (errors: ${[...new Set(outcomes.errors)].join(', ')})` : ''}`;
        if (stopped.length)
          out[`${label}: speech_stopped -> first delta p50 / p95 (ms)`] =
            `${round(percentile(stopped, 50))} / ${round(percentile(stopped, 95))}`;
        if (silence.length)
          out[`${label}: reply's leading silence p50 / max (ms)`] = `${round(percentile(silence, 50))} / ${round(Math.max(...silence))}`;
        await sleep(1000);
      }
    }
  } finally {
    await server.stop();
  }
  return out;
}
