/**
 * Cuts long text into pieces of at most `maxChars`, preferring sentence ends, then clause
 * punctuation, then spaces. flite keeps a whole utterance's audio in WASM memory (about 1 MB per
 * second of speech), so a 5000-character input at a slow rate would need gigabytes; pieces also
 * let the worker pool render one input in parallel.
 */
export function splitForFlite(text: string, maxChars = 400): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars + 1);
    const cut =
      lastMatchEnd(window, /[.!?…]["'”’)\]]*\s/g) ??
      lastMatchEnd(window, /[,;:—–]["'”’)\]]*\s/g) ??
      lastMatchEnd(window, /\s/g) ??
      maxChars;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces.filter((p) => p.length > 0);
}

/** End index of the last match in `s` that leaves at least a quarter of the window before it. */
function lastMatchEnd(s: string, pattern: RegExp): number | null {
  let end: number | null = null;
  for (const m of s.matchAll(pattern)) {
    const e = m.index + m[0].length;
    if (e >= s.length / 4) end = e;
  }
  return end;
}
