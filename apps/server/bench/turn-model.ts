import { loadavg } from 'node:os';
import { pausedSentenceTurns } from '../test/helpers/paused-sentence-turns.js';
import { startRealtimeServer } from '../test/helpers/realtime-server.js';
import { sentenceEndsEnded, sentencesWithPauses } from '../test/helpers/sentence-ends.js';
import { operatorModelsDir, round } from './harness.js';

/** The pause stretched into the 20 sentences (issue 34's) and the pause after each of the 5 sentence ends. */
const MID_SENTENCE_PAUSE_MS = 600;
const AFTER_SENTENCE_MS = 400;

/**
 * `SVC_BENCH_TURN_MODEL=smart-turn-v3.2 npm run bench -- turn-model`: what an end-of-turn model
 * (SVC_TURN_MODEL, a pulled name or an .onnx path; SVC_MODELS_DIR / SVC_DATA_DIR as for the server)
 * changes in semantic_vad's decisions, against the rule alone, on the same recordings: of the five
 * LibriVox sentence ends each followed 400 ms later by the next sentence, how many end the turn
 * there (the turn-latency bench's p95 needs all five); of the 20 recorded sentences with a 600 ms
 * pause stretched in at a clause boundary, how many stay one turn (at least 19 must). Decisions
 * are counted on the input's own timeline, so a loaded machine gives the same counts.
 */
export async function benchTurnModel(): Promise<Record<string, number | string>> {
  const model = process.env.SVC_BENCH_TURN_MODEL;
  if (!model) return { 'turn-model': 'not run: set SVC_BENCH_TURN_MODEL to a pulled model name or an .onnx path' };
  const modelsDir = operatorModelsDir();
  const out: Record<string, number | string> = { model, 'load average at start': round(loadavg()[0]!, 1) };
  for (const [label, env] of [
    ['the rule alone', {}],
    ['with the model', { SVC_TURN_MODEL: model, SVC_MODELS_DIR: modelsDir }],
  ] as const) {
    const server = await startRealtimeServer({ env });
    try {
      const ends = await sentenceEndsEnded(server, sentencesWithPauses(AFTER_SENTENCE_MS));
      out[`${label}: sentence ends that end the turn at the short pause (of 5)`] =
        `${ends.ended}${ends.kept.length ? ` (not: ${ends.kept.join('; ')})` : ''}`;
      const paused = await pausedSentenceTurns(server, MID_SENTENCE_PAUSE_MS);
      out[`${label}: sentences with a mid-sentence pause kept one turn (of ${paused.turns.length})`] =
        `${paused.turns.length - paused.split.length}${paused.split.length ? ` (split: ${paused.split.join('; ')})` : ''}`;
    } finally {
      await server.close();
    }
  }
  out['load average at end'] = round(loadavg()[0]!, 1);
  return out;
}
