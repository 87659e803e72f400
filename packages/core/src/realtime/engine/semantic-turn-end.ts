import type { PitchEnding } from '../audio/ending-pitch.js';
import type { TurnDetection } from '../session/session-config.js';
import { ENGLISH_NUMBER_WORDS } from '../../speech/normalization/english-numbers.js';

/**
 * `semantic_vad`: whether the user has finished, judged at the first short pause from what was
 * said (the partial transcript of the turn in progress) and how (the pitch at the end of the
 * speech). The detector reports that pause after SEMANTIC_PAUSE_MS of silence (or
 * `silence_duration_ms` when it is shorter); the turn then ends at once, or after more silence
 * (speech that resumes meanwhile continues the same turn):
 *
 * - finished words (at least 3, not ending on an unfinished word) said with a falling pitch: the
 *   turn ends at once, at the pause (SEMANTIC_PAUSE_MS after the detector's end of speech);
 * - unfinished words (ending on a conjunction, article, preposition, filler or number word, e.g.
 *   "I'd like two and", "at the", "um", "twenty"): after `silence_duration_ms` + UNFINISHED_WAIT_MS;
 * - anything else (finished words said with a level or rising pitch, as a phrase that goes on is,
 *   fewer words, no transcript): after `silence_duration_ms` + UNCLEAR_WAIT_MS, so a pause between
 *   two clauses does not end the turn.
 *
 * A recognizer still behind the speech (more unheard audio than the pause itself) has not heard
 * the last words: its partial says nothing of the end, and the voice alone judges. Speech of at
 * least MIN_SPEECH_MS_UNHEARD counts as finished words (a short phrase stays unclear, as two words
 * do), so a falling voice ends it at once. So does a recognizer that heard the end and made no word
 * of it: at least MIN_UNRECOGNIZED_SPEECH_MS of speech after its partial's last word
 * (`unrecognizedSpeechMs`: a creaky last word it decoded as spoken noise, or a soft one a browser's
 * noise suppression turned down that it took for silence, "... to do for [them]") means that word is
 * not the speech's last, and unfinished words are set aside the same way (finished ones stay
 * finished: judgeHeardWords). At a mid-sentence pause ("I'd like to ... go home") only silence
 * follows the last word, and the words judge.
 *
 * `eagerness` is accepted with no effect (the interface's rule). An operator may opt in to honouring
 * it (an extension): then every silence above is scaled, low x2, medium and auto x1, high x0.5,
 * except that the short pause is never shorter than SEMANTIC_PAUSE_MS: at 100 ms `high` ended turns
 * inside read sentences (a reply began 1.8 s before the sentence's end), where 200 ms did not.
 */
export const SEMANTIC_PAUSE_MS = 200;
export const UNFINISHED_WAIT_MS = 1500;
export const UNCLEAR_WAIT_MS = 500;
/** Speech (ms from the turn's onset) that counts as finished words when the recognizer has not heard its end. */
export const MIN_SPEECH_MS_UNHEARD = 1500;
/**
 * Speech after the partial's last word that the recognizer made no word of (ms), from which that word
 * is not the speech's last. pocketsphinx on the recorded sentences (docs/realtime.md, semantic_vad):
 * 140-230 ms after "... to do for" (its creaky "them"), none at 20 mid-sentence pauses or after any
 * other sentence end; a short syllable lasts about this long.
 */
export const MIN_UNRECOGNIZED_SPEECH_MS = 100;

/**
 * Words a sentence does not end on: conjunctions, articles and possessives, prepositions, copulas, the
 * subject pronouns "I" and "we", fillers. Words that end sentences as often as they begin phrases are
 * not here, and their turn is judged by the voice like any other: "you" ("nice to meet you", "thank
 * you"), "this", "these", "those" ("I'll take those").
 */
const CONTINUATION_WORDS = new Set([
  'and',
  'but',
  'or',
  'nor',
  'because',
  'so',
  'then',
  'if',
  'when',
  'while',
  'although',
  'though',
  'unless',
  'than',
  'that',
  'which',
  'who',
  'whose',
  'where',
  'the',
  'a',
  'an',
  'my',
  'your',
  'his',
  'her',
  'our',
  'their',
  'its',
  'some',
  'to',
  'of',
  'in',
  'on',
  'at',
  'for',
  'with',
  'from',
  'by',
  'about',
  'into',
  'like',
  'is',
  'are',
  'was',
  'were',
  'am',
  'be',
  'i',
  "i'm",
  'we',
  'um',
  'uh',
  'er',
  'erm',
  'hmm',
  'mm',
  'well',
]);
/** A turn that ends on a number word is unfinished ("twenty" ... "twenty-five"; "point", "oh" as digits). */
const NUMBER_WORDS = new Set([...ENGLISH_NUMBER_WORDS, 'point', 'oh']);
const EAGERNESS_FACTOR: Record<string, number> = { low: 2, medium: 1, auto: 1, high: 0.5 };

export type TurnCompleteness = 'unfinished' | 'finished' | 'unclear';

/** How far the turn has gone: the recognizer's lag and the speech's length, at the pause. */
export interface TurnProgress {
  /** Audio (ms) the recognizer has not reached yet (0 or absent: the partial is current). */
  behindMs?: number;
  /** From the turn's onset to the end of its speech (ms). */
  speechMs?: number;
  /** Speech (ms) the recognizer heard after its partial's last word and made no word of (absent: it does not say). */
  unrecognizedSpeechMs?: number;
}

export function judgeTurn(partialTranscript: string): TurnCompleteness {
  const words = partialTranscript.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const last = words[words.length - 1];
  if (last === undefined) return 'unclear';
  if (CONTINUATION_WORDS.has(last) || NUMBER_WORDS.has(last) || /^\d/.test(last)) return 'unfinished';
  return words.length >= 3 ? 'finished' : 'unclear';
}

/**
 * What the words say at a pause, given how far the recognizer has got (`pauseMs`: the silence
 * heard so far). A recognizer behind by more than the pause has not heard the last words: the
 * speech's length stands in for them. Speech after the partial's last word that it made no word of
 * means that word is not the speech's last: unfinished words ("... to do for [them]") are then set
 * aside the same way, while finished ones stay finished (what follows them is a soft tail, or more
 * of a finished phrase, and a fall still ends it).
 */
export function judgeHeardWords(partial: string, progress: TurnProgress, pauseMs: number): TurnCompleteness {
  const byLength = (progress.speechMs ?? 0) >= MIN_SPEECH_MS_UNHEARD ? 'finished' : 'unclear';
  if ((progress.behindMs ?? 0) > pauseMs) return byLength;
  const words = judgeTurn(partial);
  const unrecognized = (progress.unrecognizedSpeechMs ?? 0) >= MIN_UNRECOGNIZED_SPEECH_MS;
  return unrecognized && words !== 'finished' ? byLength : words;
}

/**
 * The semantic_vad rule of a session. `honourEagerness`: the operator's opt-in to the extension;
 * without it every eagerness acts as `auto`.
 */
export class SemanticTurnEnd {
  constructor(private readonly honourEagerness = false) {}

  /** The silence (ms) after which the detector reports a pause: semantic_vad's is short, server_vad's is its rule. */
  detectorSilenceMs(td: TurnDetection): number {
    if (td.type !== 'semantic_vad') return td.silence_duration_ms;
    return Math.min(td.silence_duration_ms, Math.max(SEMANTIC_PAUSE_MS, this.scaled(SEMANTIC_PAUSE_MS, td)));
  }

  /**
   * Extra silence (ms) to wait, after the detector's pause, before the turn ends: 0 ends it now.
   * `partial`: the words so far; `pitch`: how the voice ended; `progress`: the recognizer's lag and
   * the speech's length.
   */
  extraWaitMs(td: TurnDetection, partial: string, pitch: PitchEnding, progress: TurnProgress = {}): number {
    const reported = this.detectorSilenceMs(td);
    const judged = judgeHeardWords(partial, progress, reported);
    if (judged === 'finished' && pitch === 'falling') return 0;
    const base = this.scaled(td.silence_duration_ms, td);
    const extra = this.scaled(judged === 'unfinished' ? UNFINISHED_WAIT_MS : UNCLEAR_WAIT_MS, td);
    return Math.max(0, base + extra - reported);
  }

  private scaled(ms: number, td: TurnDetection): number {
    const factor = this.honourEagerness ? (EAGERNESS_FACTOR[td.eagerness ?? 'auto'] ?? 1) : 1;
    return Math.round(ms * factor);
  }
}
