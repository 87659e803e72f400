/**
 * Byte-level BPE encoding (GPT-2 / Whisper `tokenizer.json`): the text is split by GPT-2's
 * pre-tokenizer pattern, each piece's UTF-8 bytes become characters through GPT-2's byte-to-unicode
 * table, and the file's `model.merges` are applied lowest rank first until none applies; the
 * resulting pieces are looked up in `model.vocab`. Special tokens are never produced from text.
 */
export class ByteLevelBpe {
  private readonly ranks = new Map<string, number>();
  private readonly vocab: Map<string, number>;
  private readonly cache = new Map<string, number[]>();

  constructor(
    vocab: Map<string, number>,
    merges: readonly (string | readonly [string, string])[],
    private readonly source: string,
  ) {
    this.vocab = vocab;
    merges.forEach((merge, rank) => {
      const [a, b] = typeof merge === 'string' ? splitMerge(merge) : merge;
      const key = pairKey(a, b);
      if (!this.ranks.has(key)) this.ranks.set(key, rank);
    });
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    const table = byteToUnicode();
    for (const [piece] of text.matchAll(GPT2_SPLIT)) {
      const word = Array.from(new TextEncoder().encode(piece), (b) => table[b]!).join('');
      let cached = this.cache.get(word);
      if (!cached) {
        cached = this.bpe(word).map((symbol) => {
          const id = this.vocab.get(symbol);
          if (id === undefined)
            throw new Error(`${this.source}: the vocabulary has no piece '${symbol}' (cannot encode ${JSON.stringify(piece)})`);
          return id;
        });
        this.cache.set(word, cached);
      }
      ids.push(...cached);
    }
    return ids;
  }

  /** Merges the word's symbols pair by pair, the best-ranked pair first, every occurrence left to right. */
  private bpe(word: string): string[] {
    let symbols = Array.from(word);
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < symbols.length; i++) {
        const rank = this.ranks.get(pairKey(symbols[i]!, symbols[i + 1]!));
        if (rank !== undefined && rank < bestRank) {
          bestRank = rank;
          best = i;
        }
      }
      if (best < 0) return symbols;
      const [a, b] = [symbols[best]!, symbols[best + 1]!];
      const merged: string[] = [];
      for (let i = 0; i < symbols.length; i++) {
        if (i + 1 < symbols.length && symbols[i] === a && symbols[i + 1] === b) {
          merged.push(a + b);
          i++;
        } else merged.push(symbols[i]!);
      }
      symbols = merged;
    }
  }
}

/** GPT-2's pre-tokenizer (the ByteLevel pre_tokenizer's `use_regex`): contractions, words, numbers, punctuation, spaces. */
const GPT2_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

const pairKey = (a: string, b: string): string => `${a}\u0000${b}`;

/** "a b" (the older tokenizer.json form); the pieces themselves never hold a plain space. */
function splitMerge(merge: string): [string, string] {
  const at = merge.indexOf(' ', 1);
  return [merge.slice(0, at), merge.slice(at + 1)];
}

let table: string[] | null = null;

/** GPT-2's table: printable bytes map to themselves, the others to U+0100 upwards, in byte order. */
export function byteToUnicode(): string[] {
  if (table) return table;
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  let next = 256;
  table = Array.from({ length: 256 }, (_, b) => String.fromCodePoint(printable(b) ? b : next++));
  return table;
}
