import { loadavg } from 'node:os';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.js';
import { speculationCounts } from '../test/helpers/speculation-metrics.js';
import { operatorModelsDir, percentile, round } from './harness.js';
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

/** Speculation (SVC_REALTIME_SPECULATION) off and on: two servers of the same build, measured turn by turn in the same window. */
const SPECULATION: Record<string, string> = { off: 'false', on: 'true' };

/**
 * `npm run bench -- turn-latency`: the pause a person hears, from the client's clock. Callers speak
 * the five LibriVox sentences (a human reader, real-time pace, 20 ms appends, 4 s of silence after
 * each, so that a reply starts before the next sentence even on a loaded machine) over the realtime
 * WebSocket with spoken replies; each turn is timed from the END OF THE SENTENCE'S LAST WORD
 * (pocketsphinx forced to the words said: test/helpers/forced-alignment.ts) to the reply's FIRST
 * SOUND as the client plays it (the first sample at or above -44 dBFS, deltas played back to back
 * from the first one's arrival); also from the last loud 10 ms (within 30 dB of the loudest frame),
 * the measure before the alignment, which counted room noise after two of the sentences as speech. Also
 * `speech_stopped` -> first delta and the reply's leading silence. Per mode (server_vad defaults,
 * semantic_vad auto, semantic_vad high with the operator opt-in), per number of callers at once
 * (`SVC_BENCH_TURN_CALLERS`, default 1; `SVC_BENCH_TURN_RUNS` conversations each, default 1), and
 * with speculation off and on (`SVC_BENCH_TURN_SPECULATION`, default `off,on`: one server each, the
 * conversations alternating between them, so a loaded machine weighs on both alike; the ratio on/off
 * is reported). The servers run as their own processes, with the admission's load guards out of the
 * way (other tenants' load must not turn speculation off for the comparison); `SVC_BENCH_SERVER_ENTRY`
 * runs another build; `SVC_BENCH_TURN_MODES=high` (a comma list matched against the mode labels)
 * measures only some modes; `SVC_BENCH_TURN_APPEND_MS` (default 20) sets how much audio each append
 * carries (many clients send 100 ms); `SVC_BENCH_TURN_MODEL` gives the servers semantic_vad's
 * end-of-turn model (SVC_TURN_MODEL: a pulled name or an .onnx path).
 */
export async function benchTurnLatency(): Promise<Record<string, number | string>> {
  const levels = (process.env.SVC_BENCH_TURN_CALLERS ?? '1').split(',').map(Number);
  const runs = Number(process.env.SVC_BENCH_TURN_RUNS ?? 1);
  const appendMs = Number(process.env.SVC_BENCH_TURN_APPEND_MS ?? 20);
  const entry = process.env.SVC_BENCH_SERVER_ENTRY;
  const turnModel = process.env.SVC_BENCH_TURN_MODEL;
  const settings = (process.env.SVC_BENCH_TURN_SPECULATION ?? 'off,on').split(',').filter((k) => k in SPECULATION);
  const servers: Record<string, ServerProcess> = {};
  const out: Record<string, number | string> = {
    server: entry ?? 'this build',
    'audio appended per message (ms)': appendMs,
    ...(turnModel ? { 'end-of-turn model': turnModel } : {}),
  };
  try {
    for (const setting of settings) {
      servers[setting] = await startServerProcess({
        env: {
          // SVC_BENCH_LOG_LEVEL=debug: the servers' logs are printed at the end (why a turn waited)
          SVC_LOG_LEVEL: process.env.SVC_BENCH_LOG_LEVEL ?? 'warn',
          SVC_RATE_LIMIT_PER_MINUTE: '0',
          SVC_REALTIME_MAX_SESSIONS: '2000',
          SVC_REALTIME_MAX_SESSIONS_PER_KEY: '2000',
          SVC_REALTIME_CAPACITY: 'off',
          SVC_REALTIME_MAX_EVENT_LOOP_LAG_MS: '600000',
          SVC_REALTIME_MAX_RECOGNIZER_BACKLOG_MS: '600000',
          SVC_REALTIME_SPECULATION: SPECULATION[setting]!,
          SVC_ASR_ENGINE: 'pocketsphinx',
          SVC_REALTIME_WARM_UP: 'blocking',
          // A loaded machine's late transcripts are measured, not dropped.
          SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: '20000',
          // The opt-in is this build's; another build (main's) is started without it.
          ...(entry ? {} : { SVC_REALTIME_SEMANTIC_EAGERNESS: 'true' }),
          // SVC_BENCH_TURN_MODEL: semantic_vad's end-of-turn model (a pulled name, or an .onnx path)
          ...(turnModel
            ? {
                SVC_TURN_MODEL: turnModel,
                SVC_MODELS_DIR: operatorModelsDir(),
              }
            : {}),
        },
        readyTimeoutMs: 180_000,
        ...(entry ? { entry } : {}),
      });
    }
    const speech = librivoxClips();
    // SVC_BENCH_TURN_MODES: measure only the modes whose label contains one of these (e.g. `high`)
    const only = process.env.SVC_BENCH_TURN_MODES?.split(',').filter(Boolean);
    const modes = Object.entries(MODES).filter(([m]) => !only || only.some((o) => m.includes(o)));
    for (const callers of levels) {
      for (const [mode, turnDetection] of modes) {
        const label = `${callers} caller${callers === 1 ? '' : 's'}, ${mode}`;
        const load = loadavg()[0]!;
        const results = Object.fromEntries(settings.map((k) => [k, new ModeResult()]));
        const before = Object.fromEntries(
          await Promise.all(settings.map(async (k) => [k, await speculationCounts(servers[k]!.url, servers[k]!.apiKey)] as const)),
        );
        for (let run = 0; run < runs; run++) {
          for (const setting of settings) {
            const calls = await Promise.all(
              Array.from({ length: callers }, async (_, i) => {
                await sleep((i * 1500) / callers);
                return converse(servers[setting]!, [...speech.slice(i % speech.length), ...speech.slice(0, i % speech.length)], appendMs, {
                  turnDetection,
                  pauseMs: PAUSE_MS,
                });
              }),
            );
            for (const c of calls) results[setting]!.add(c);
          }
        }
        out[`${label}: load average at start / end`] = `${round(load, 1)} / ${round(loadavg()[0]!, 1)}`;
        for (const setting of settings) {
          const after = await speculationCounts(servers[setting]!.url, servers[setting]!.apiKey);
          const used = after.used - before[setting]!.used;
          const discarded = after.discarded - before[setting]!.discarded;
          results[setting]!.report(out, `${label}, speculation ${setting}`, { used, discarded });
        }
        if (results.off && results.on) {
          const [off, on] = [results.off.heardPercentiles(), results.on.heardPercentiles()];
          if (off && on)
            out[`${label}: ratio speculation on / off, p50 / p95`] = `${round(on.p50 / off.p50, 2)} / ${round(on.p95 / off.p95, 2)}`;
        }
        await sleep(1000);
      }
    }
  } finally {
    if (process.env.SVC_BENCH_LOG_LEVEL)
      for (const [setting, server] of Object.entries(servers)) process.stderr.write(`--- server, speculation ${setting}\n${server.logs()}`);
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
  return out;
}

/** One mode's turns under one setting. */
class ModeResult {
  private readonly turns: TurnTiming[] = [];
  private sentences = 0;
  private readonly outcomes = { explained: 0, interrupted: 0, missed: 0, errors: [] as string[] };

  add(c: Awaited<ReturnType<typeof converse>>): void {
    this.turns.push(...c.turns);
    this.sentences += c.reference.length;
    this.outcomes.explained += c.explained;
    this.outcomes.interrupted += c.interrupted;
    this.outcomes.missed += c.missed;
    this.outcomes.errors.push(...c.errors);
  }

  heardPercentiles(): { p50: number; p95: number } | null {
    const heard = this.turns.map((t) => t.heard).filter(Number.isFinite);
    return heard.length ? { p50: percentile(heard, 50), p95: percentile(heard, 95) } : null;
  }

  report(out: Record<string, number | string>, label: string, speculated: { used: number; discarded: number }): void {
    const heard = this.turns.map((t) => t.heard).filter(Number.isFinite);
    const stopped = this.turns.map((t) => t.fromStopped);
    const silence = this.turns.map((t) => t.leadingSilence).filter(Number.isFinite);
    const p = this.heardPercentiles();
    out[`${label}: end of the last word -> first reply sound p50 / p95 (ms, n=${heard.length} of ${this.sentences})`] = p
      ? `${round(p.p50)} / ${round(p.p95)}`
      : 'none';
    // Turn by turn, in the order spoken: which sentences wait (a median hides that).
    out[`${label}: each turn, end of the last word -> first reply sound (ms)`] = this.turns.map((t) => round(t.heard)).join(', ');
    // The detector's share: how long after the last word it heard speech end (Silero on soft ends and breaths).
    out[`${label}: each turn, the detector's end of speech (audio_end_ms) after the last word's end (ms)`] = this.turns
      .map((t) => round(t.detectorEndAfterWords))
      .join(', ');
    // The server's share after the detector's end: waiting out the pause's judgement, then preparing the reply.
    out[`${label}: each turn, speech_stopped -> first delta (ms)`] = stopped.map((ms) => round(ms)).join(', ');
    const afterLoud = this.turns.map((t) => t.heardAfterLastLoud).filter(Number.isFinite);
    if (afterLoud.length)
      out[`${label}: from the last loud 10 ms instead (the measure before the alignment), p50 / p95 (ms)`] =
        `${round(percentile(afterLoud, 50))} / ${round(percentile(afterLoud, 95))}`;
    const { explained, interrupted, missed, errors } = this.outcomes;
    out[`${label}: turns answered / with an error / reply not started before the next sentence / missed`] =
      `${this.turns.length} / ${explained} / ${interrupted} / ${missed} of ${this.sentences}${errors.length ? ` (errors: ${[...new Set(errors)].join(', ')})` : ''}`;
    if (stopped.length)
      out[`${label}: speech_stopped -> first delta p50 / p95 (ms)`] =
        `${round(percentile(stopped, 50))} / ${round(percentile(stopped, 95))}`;
    if (silence.length)
      out[`${label}: reply's leading silence p50 / max (ms)`] = `${round(percentile(silence, 50))} / ${round(Math.max(...silence))}`;
    out[`${label}: replies begun at a pause used / discarded`] = `${speculated.used} / ${speculated.discarded}`;
  }
}
