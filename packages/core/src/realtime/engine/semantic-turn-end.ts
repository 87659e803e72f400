/**
 * `semantic_vad`: whether the user has finished, judged from the words recognized so far (the
 * partial transcript of the turn in progress), when the detector reports `silence_duration_ms` of
 * silence. The turn then ends at once, or only after more silence (speech that resumes meanwhile
 * continues the same turn):
 *
 * - unfinished (ends on a conjunction, article, preposition, filler, or a number word, e.g. "I'd
 *   like two and", "at the", "um", "twenty"): waits UNFINISHED_WAIT_MS more;
 * - finished (at least 3 words, not unfinished: a question or a sentence): ends at once;
 * - unclear (fewer words, or no transcript at all): waits UNCLEAR_WAIT_MS more.
 *
 * `eagerness` scales the waits: low x2, medium and auto x1, high x0.5.
 */
export const UNFINISHED_WAIT_MS = 1500;
export const UNCLEAR_WAIT_MS = 500;

const CONTINUATION_WORDS = new Set([
  'and', 'but', 'or', 'nor', 'because', 'so', 'then', 'if', 'when', 'while', 'although', 'though', 'unless', 'than', 'that',
  'which', 'who', 'whose', 'where', 'the', 'a', 'an', 'my', 'your', 'his', 'her', 'our', 'their', 'its', 'this', 'these',
  'those', 'some', 'to', 'of', 'in', 'on', 'at', 'for', 'with', 'from', 'by', 'about', 'into', 'like', 'is', 'are', 'was',
  'were', 'am', 'be', 'i', "i'm", 'we', 'you', 'um', 'uh', 'er', 'erm', 'hmm', 'mm', 'well',
]);
const NUMBER_WORDS = new Set([
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen',
  'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty', 'thirty', 'forty', 'fifty', 'sixty',
  'seventy', 'eighty', 'ninety', 'hundred', 'thousand', 'million', 'point', 'oh',
]);
const EAGERNESS_FACTOR: Record<string, number> = { low: 2, medium: 1, auto: 1, high: 0.5 };

export type TurnCompleteness = 'unfinished' | 'finished' | 'unclear';

export function judgeTurn(partialTranscript: string): TurnCompleteness {
  const words = partialTranscript.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const last = words[words.length - 1];
  if (last === undefined) return 'unclear';
  if (CONTINUATION_WORDS.has(last) || NUMBER_WORDS.has(last) || /^\d/.test(last)) return 'unfinished';
  return words.length >= 3 ? 'finished' : 'unclear';
}

/** Extra silence (ms) to wait before ending a semantic_vad turn whose words so far are `partial`. */
export function semanticEndWaitMs(partial: string, eagerness: string | undefined): number {
  const factor = EAGERNESS_FACTOR[eagerness ?? 'auto'] ?? 1;
  const judged = judgeTurn(partial);
  if (judged === 'finished') return 0;
  return Math.round((judged === 'unfinished' ? UNFINISHED_WAIT_MS : UNCLEAR_WAIT_MS) * factor);
}
