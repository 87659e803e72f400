import type { TurnDetection } from '../session/session-config.js';
import { backchannelsOf, substantiveWords } from './backchannels.js';

/**
 * A fast speaker's rate. The recognizer's partial results carry no confidence, and on a hum it
 * makes up words ("mm-hmm" -> "on m h and m", "uh-huh" -> "but but"): words beyond what the
 * voiced duration can carry at this rate are not believed. This is the confidence the words rule
 * is combined with.
 */
export const MAX_WORDS_PER_SECOND = 3;

/** Which rule decided a barge-in (the logs name it). */
export type InterruptionRule = 'immediate' | 'duration' | 'words' | 'short_speech' | 'resume_disabled';

export type InterruptionVerdict = { decided: false } | { decided: true; interrupt: boolean; rule: InterruptionRule; words: string[] };

/** What the judge looks at: how long the user has voiced speech, and what the recognizer heard so far. */
export interface SpeechSoFar {
  voicedMs: number;
  partial: string;
}

/**
 * Whether speech over a reply is a real interruption: it is once the voiced speech lasts
 * `min_interruption_duration`, or once the partial result holds `min_interruption_words` words
 * that are not backchannels (no more than MAX_WORDS_PER_SECOND of voiced speech). When the speech
 * ends without either, it was a backchannel, a cough or a false start: the reply resumes (or is
 * cancelled, with `resume_false_interruption: false`).
 */
export class InterruptionJudge {
  private readonly backchannels: ReadonlySet<string>;

  constructor(
    private readonly td: Pick<TurnDetection, 'min_interruption_duration' | 'min_interruption_words' | 'resume_false_interruption'>,
    language: string | null,
  ) {
    this.backchannels = backchannelsOf(language);
  }

  /** Zero duration: any speech interrupts at speech_started, without a pause. */
  get immediate(): boolean {
    return this.td.min_interruption_duration <= 0;
  }

  /** While the user speaks: decided only when the speech proves an interruption. */
  during(speech: SpeechSoFar): InterruptionVerdict {
    const words = this.believedWords(speech);
    if (speech.voicedMs >= this.td.min_interruption_duration * 1000) return { decided: true, interrupt: true, rule: 'duration', words };
    if (this.wordsProve(words)) return { decided: true, interrupt: true, rule: 'words', words };
    return { decided: false };
  }

  /** At the end of the speech: always decided. */
  atEnd(speech: SpeechSoFar): Extract<InterruptionVerdict, { decided: true }> {
    const verdict = this.during(speech);
    if (verdict.decided) return verdict;
    const words = this.believedWords(speech);
    if (!this.td.resume_false_interruption) return { decided: true, interrupt: true, rule: 'resume_disabled', words };
    return { decided: true, interrupt: false, rule: 'short_speech', words };
  }

  private wordsProve(words: string[]): boolean {
    return this.td.min_interruption_words > 0 && words.length >= this.td.min_interruption_words;
  }

  /** The substantive words of the partial, capped by what the voiced duration can carry. */
  private believedWords(speech: SpeechSoFar): string[] {
    const words = substantiveWords(speech.partial, this.backchannels);
    const carried = Math.floor((Math.max(0, speech.voicedMs) / 1000) * MAX_WORDS_PER_SECOND);
    return words.slice(0, carried);
  }
}
