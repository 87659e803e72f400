import { splitSentences } from '../../speech/sentence-splitter.js';

/** The first spoken piece may be a clause this long or longer, so the first audio leaves sooner. */
const FIRST_CLAUSE_MIN_CHARS = 12;
const MAX_CHARS = 220;
const CLAUSE_END = /[,;:—–](?=\s)/g;

/**
 * Cuts streamed reply text into the pieces spoken one at a time, with the speech sentence splitter
 * of POST /v1/audio/speech (abbreviations such as "Dr." and numbers such as "3.14" stay whole). A
 * sentence is complete once the text after it has begun; the first piece of a reply is also cut at
 * a clause (a comma after at least 12 characters) so speech starts before the first sentence ends.
 */
export class SentenceChunker {
  private pending = '';
  private first = true;
  /** Whether the first piece was cut at a clause (the next piece then continues its sentence). */
  cutAtClause = false;

  push(delta: string): string[] {
    this.pending += delta;
    const out: string[] = [];
    if (this.first) {
      const clause = this.firstClause();
      if (clause) out.push(clause);
    }
    const sentences = splitSentences(this.pending, MAX_CHARS);
    // The last sentence may still grow; the ones before it are complete.
    let cursor = 0;
    for (const sentence of sentences.slice(0, -1)) {
      const at = this.pending.indexOf(sentence, cursor);
      if (at < 0) break;
      out.push(sentence);
      cursor = at + sentence.length;
    }
    this.pending = this.pending.slice(cursor);
    if (out.length > 0) this.first = false;
    return out;
  }

  flush(): string | null {
    const rest = this.pending.trim();
    this.pending = '';
    return rest ? rest : null;
  }

  private firstClause(): string | null {
    CLAUSE_END.lastIndex = 0;
    for (const match of this.pending.matchAll(CLAUSE_END)) {
      const end = match.index + 1;
      if (end < FIRST_CLAUSE_MIN_CHARS) continue;
      // Only when the clause is not already the end of a complete sentence piece.
      const clause = this.pending.slice(0, end).trim();
      if (splitSentences(clause, MAX_CHARS).length !== 1) return null;
      this.pending = this.pending.slice(end);
      this.first = false;
      this.cutAtClause = true;
      return clause;
    }
    return null;
  }
}
