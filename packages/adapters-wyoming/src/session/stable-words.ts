const words = (text: string): string[] => text.toLowerCase().split(/\s+/).filter(Boolean);

function startsWith(all: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= all.length && prefix.every((w, i) => all[i] === w);
}

function commonPrefix(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++) out.push(a[i]!);
  return out;
}

/**
 * The words of a recognizer's changing hypothesis that can be sent as `transcript-chunk`s, which
 * clients append to each other: a word goes out once two hypotheses in a row agree on it and it is
 * not the last one (still being heard). What went out is never taken back: if the final transcript
 * revises it, the chunks stop and the final `transcript` event (which clients take as the result)
 * says what was heard.
 */
export class StableWords {
  private sent: string[] = [];
  private previous: string[] = [];

  /** The text to append for a new partial hypothesis, or null. */
  partial(hypothesis: string): string | null {
    const current = words(hypothesis);
    const agreed = commonPrefix(this.previous, current.slice(0, -1));
    this.previous = current;
    return this.extend(agreed);
  }

  /** The rest of the final transcript, when it continues what was sent. */
  final(text: string): string | null {
    return this.extend(words(text));
  }

  private extend(next: string[]): string | null {
    if (next.length <= this.sent.length || !startsWith(next, this.sent)) return null;
    const added = next.slice(this.sent.length).join(' ');
    const text = this.sent.length > 0 ? ` ${added}` : added;
    this.sent = next;
    return text;
  }
}
