import { ByteLevelBpe, byteToUnicode } from './byte-level-bpe.js';

/**
 * Turns generated token ids back into text from a Hugging Face `tokenizer.json`, and text into ids
 * for the byte-level BPE ones (Whisper's prompt). Two families are covered, chosen by the file's `decoder`:
 *  - byte-level BPE (Whisper, GPT-2): every character of a token stands for one byte through
 *    GPT-2's byte-to-unicode table; the bytes are UTF-8.
 *  - SentencePiece style (Moonshine, Llama): `▁` is a space, `<0xNN>` tokens are raw bytes
 *    (byte fallback), and the leading space of the text is stripped.
 * Special tokens (`added_tokens` marked special) are skipped.
 */
export class TokenDecoder {
  private readonly byId = new Map<number, string>();
  private readonly special = new Set<number>();
  private readonly idByToken = new Map<string, number>();
  private readonly byteLevel: boolean;
  private encoder: ByteLevelBpe | null = null;

  constructor(
    private readonly tokenizer: unknown,
    private readonly source: string,
  ) {
    const t = tokenizer as {
      model?: { vocab?: Record<string, number> | [string, number][] };
      added_tokens?: { id: number; content: string; special?: boolean }[];
      decoder?: unknown;
    };
    const vocab = t?.model?.vocab;
    if (!vocab || typeof vocab !== 'object') throw new Error(`${source}: no model.vocab (not a Hugging Face tokenizer.json)`);
    // BPE/WordPiece vocabularies are { token: id }; Unigram ones are [[token, score], ...] in id order.
    if (Array.isArray(vocab)) vocab.forEach(([token], id) => this.add(id, token));
    else for (const [token, id] of Object.entries(vocab)) this.add(id, token);
    for (const added of t.added_tokens ?? []) {
      this.add(added.id, added.content);
      if (added.special) this.special.add(added.id);
    }
    this.byteLevel = JSON.stringify(t.decoder ?? {}).includes('"ByteLevel"');
  }

  /** The id of a token such as `<|en|>`, or undefined. */
  id(token: string): number | undefined {
    return this.idByToken.get(token);
  }

  token(id: number): string | undefined {
    return this.byId.get(id);
  }

  /** The special tokens (`added_tokens` marked special) and their ids. */
  specialTokens(): Map<string, number> {
    return new Map([...this.special].map((id) => [this.byId.get(id)!, id]));
  }

  decode(ids: readonly number[]): string {
    const pieces = ids.filter((id) => !this.special.has(id)).map((id) => this.byId.get(id) ?? '');
    return this.byteLevel ? decodeByteLevel(pieces) : decodeSentencePiece(pieces);
  }

  /** Ids of `text` (byte-level BPE tokenizers only: Whisper's; a SentencePiece one throws). */
  encode(text: string): number[] {
    if (!this.byteLevel) throw new Error(`${this.source}: only byte-level BPE tokenizers can encode text here`);
    if (!this.encoder) {
      const merges = (this.tokenizer as { model?: { merges?: (string | [string, string])[] } }).model?.merges ?? [];
      const vocab = new Map([...this.idByToken].filter(([, id]) => !this.special.has(id)));
      this.encoder = new ByteLevelBpe(vocab, merges, this.source);
    }
    return this.encoder.encode(text);
  }

  private add(id: number, token: string): void {
    this.byId.set(id, token);
    this.idByToken.set(token, id);
  }
}

let unicodeToByte: Map<string, number> | null = null;

function byteTable(): Map<string, number> {
  unicodeToByte ??= new Map(byteToUnicode().map((ch, b) => [ch, b]));
  return unicodeToByte;
}

function decodeByteLevel(pieces: string[]): string {
  const table = byteTable();
  const bytes: number[] = [];
  for (const piece of pieces) for (const ch of piece) bytes.push(table.get(ch) ?? 0x3f);
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

function decodeSentencePiece(pieces: string[]): string {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (const piece of pieces) {
    const fallback = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece);
    if (fallback) bytes.push(parseInt(fallback[1]!, 16));
    else bytes.push(...encoder.encode(piece.replaceAll('\u2581', ' ')));
  }
  const text = new TextDecoder().decode(Uint8Array.from(bytes));
  return text.startsWith(' ') ? text.slice(1) : text;
}
