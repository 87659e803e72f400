/**
 * Cuts streamed reply text into sentences so speech can start after the first one instead of
 * after the whole reply. Long runs without punctuation are cut at a space to bound latency.
 */
const SENTENCE_END = /[.!?…。！？]+["'”’)\]]*\s+|\n+/g;
const MAX_CHARS_WITHOUT_BREAK = 220;

export class SentenceChunker {
  private pending = '';

  push(delta: string): string[] {
    this.pending += delta;
    const out: string[] = [];
    let cut = 0;
    SENTENCE_END.lastIndex = 0;
    for (let m = SENTENCE_END.exec(this.pending); m; m = SENTENCE_END.exec(this.pending)) {
      const end = m.index + m[0].length;
      const sentence = this.pending.slice(cut, end).trim();
      if (sentence) out.push(sentence);
      cut = end;
    }
    this.pending = this.pending.slice(cut);
    while (this.pending.length > MAX_CHARS_WITHOUT_BREAK) {
      const space = this.pending.lastIndexOf(' ', MAX_CHARS_WITHOUT_BREAK);
      const at = space > 0 ? space : MAX_CHARS_WITHOUT_BREAK;
      const piece = this.pending.slice(0, at).trim();
      if (piece) out.push(piece);
      this.pending = this.pending.slice(at);
    }
    return out;
  }

  flush(): string | null {
    const rest = this.pending.trim();
    this.pending = '';
    return rest ? rest : null;
  }
}
