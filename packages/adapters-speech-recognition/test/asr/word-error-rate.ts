// Word error rate for the recognizer tests (not a test file itself; the same idea as the server's helper).

/** Word-level edit distance / reference length; case and punctuation ignored. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = words(reference);
  const hyp = words(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1);
    }
    previous = current;
  }
  return previous[hyp.length]! / ref.length;
}

/** "mister" and "mr" are the same word to a listener; pocketsphinx's dictionary spells it "mr". */
const SPELLINGS: Record<string, string> = { mister: 'mr' };

const words = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => SPELLINGS[w] ?? w);
