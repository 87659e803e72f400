import { judgeTurn, PITCH_CONTEXT_MS, pitchCues, type PitchCues } from '@svc/core';
import { librivoxSentences } from '../test/helpers/librivox.js';
import { throughOpus } from '../test/helpers/opus-round-trip.js';
import { PAUSED_AT } from '../test/helpers/paused-sentences.js';
import { RATE, recording } from '../test/helpers/recorded-speech.js';
import { round } from './harness.js';
import { lastLoudMs } from './voice-caller.js';

/** Where the speech is judged to end, shifted by these (ms): the detector's frames fall anywhere. */
const ALIGNMENTS_MS = [0, 10, 20, 30];

/**
 * `npm run bench -- semantic-cues`: what semantic_vad's cues say at each pause it must judge, counted
 * offline (no server, no timing) over the recordings the tests and the turn-latency bench use: the
 * five LibriVox sentence ends (each must end the turn) and the twenty mid-sentence pauses of the
 * semantic_vad test (none may). Per pause: the pitch verdict at four alignments of the speech's end,
 * the raw numbers at the first (the speaker's median, the ending's ratio to it, frames of creak),
 * the energy decay over the last 300 ms, and the reference words' verdict (the server judges the
 * recognizer's partial, which may differ or lag). The speech ends where the recording's last loud
 * 10 ms does (sentence ends) or at the pause (mid-sentence); the pitch is judged over the
 * PITCH_CONTEXT_MS before it, as the server does.
 */
export async function benchSemanticCues(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  const tally = { ends: 0, pauses: 0, endsOpus: 0, pausesOpus: 0 };
  const sentences = librivoxSentences();
  for (const s of sentences) {
    const endMs = lastLoudMs(Buffer.from(s.samples.buffer, s.samples.byteOffset, s.samples.byteLength));
    const row = judged(s.samples, endMs, s.words, 'end');
    if (row.finished) tally.ends++;
    if (row.finishedOpus) tally.endsOpus++;
    out[`sentence end ${s.id.slice(-4)} "... ${s.words.split(' ').slice(-4).join(' ')}"`] = row.text;
  }
  for (const p of PAUSED_AT) {
    const row = judged(recording(p.file), p.seconds * 1000, p.words.split('|')[0]!, 'pause');
    if (row.finished) tally.pauses++;
    if (row.finishedOpus) tally.pausesOpus++;
    out[`mid-sentence ${p.file.slice(-8)} @${p.seconds}s "${p.words}"`] = row.text;
  }
  out['sentence ends judged finished at every alignment'] = `${tally.ends} of ${sentences.length}`;
  out['mid-sentence pauses judged finished at any alignment (each ends the turn early)'] = `${tally.pauses} of ${PAUSED_AT.length}`;
  out['through Opus VOIP (a browser over WebRTC): sentence ends judged finished'] = `${tally.endsOpus} of ${sentences.length}`;
  out['through Opus VOIP: mid-sentence pauses judged finished'] = `${tally.pausesOpus} of ${PAUSED_AT.length}`;
  return out;
}

/**
 * The verdicts at a speech end of `endMs`, as recorded and through the browser's codec (Opus VOIP,
 * as over WebRTC). `finished`: the words and the voice end the turn at every alignment (a sentence
 * end: counted only when sure) or at any (a pause: counted when it may).
 */
function judged(
  samples: Int16Array,
  endMs: number,
  words: string,
  kind: 'end' | 'pause',
): { text: string; finished: boolean; finishedOpus: boolean } {
  const verdictsOf = (x: Int16Array) => ALIGNMENTS_MS.map((shift) => pitchCues(contextBefore(x, endMs + shift), RATE));
  const verdicts = verdictsOf(samples);
  const opus = verdictsOf(throughOpus(samples, RATE));
  const first = verdicts[0]!;
  const wordsVerdict = judgeTurn(words);
  const ends = (vs: PitchCues[]) => {
    const falling = vs.filter((v) => v.ending === 'falling').length;
    return wordsVerdict === 'finished' && (kind === 'end' ? falling === vs.length : falling > 0);
  };
  const lastWord = words.trim().split(/\s+/).pop();
  return {
    finished: ends(verdicts),
    finishedOpus: ends(opus),
    text:
      `pitch ${verdicts.map((v) => v.ending).join('/')}; median ${round(first.medianHz)} Hz, ending ${round(first.endingRatio, 2)}, ` +
      `creak ${first.creakFrames} frames; decay ${round(energyDecayDb(samples, endMs), 1)} dB; words "${lastWord}" ${wordsVerdict}; ` +
      `through Opus ${opus.map((v) => v.ending).join('/')}, ending ${round(opus[0]!.endingRatio, 2)}, creak ${opus[0]!.creakFrames}`,
  };
}

function contextBefore(samples: Int16Array, endMs: number): Int16Array {
  const end = Math.min(samples.length, Math.round((endMs / 1000) * RATE));
  return samples.subarray(Math.max(0, end - Math.round((PITCH_CONTEXT_MS / 1000) * RATE)), end);
}

/** Loudness (dB) of the 100 ms 300 ms before the end over the last 100 ms: how the voice fades as it stops. */
function energyDecayDb(samples: Int16Array, endMs: number): number {
  const at = (ms: number) => Math.round((ms / 1000) * RATE);
  const power = (from: number, to: number) => {
    let e = 0;
    for (let i = Math.max(0, at(from)); i < Math.min(samples.length, at(to)); i++) e += samples[i]! * samples[i]!;
    return e / Math.max(1, at(to) - at(from)) + 1;
  };
  return 10 * Math.log10(power(endMs - 300, endMs - 200) / power(endMs - 100, endMs));
}
