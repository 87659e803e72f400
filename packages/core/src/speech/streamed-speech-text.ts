import { SentenceChunker } from '../realtime/audio/sentence-chunker.js';
import { lastingTags } from './inline-tags.js';

/**
 * Text that arrives in pieces (a language model's reply streamed to a speech client) cut into the
 * pieces spoken one at a time: each complete sentence as soon as the text after it has begun (the
 * first one already at a clause, see SentenceChunker), the rest on `flush()`. Each piece is spoken
 * as a request of its own, so the inline tags that set emotion, style or prosody in earlier pieces
 * are carried in front of it: the reply sounds as it would have in one request.
 */
export class StreamedSpeechText {
  private readonly chunker = new SentenceChunker();
  private carried = '';
  private received = 0;

  /** Characters pushed so far (code points, as the speech input limit counts them). */
  get length(): number {
    return this.received;
  }

  push(delta: string): string[] {
    for (const _ of delta) this.received++;
    return this.chunker.push(delta).map((piece) => this.carry(piece));
  }

  /** What is left once the text has ended (null when nothing is). */
  flush(): string | null {
    const rest = this.chunker.flush();
    return rest === null ? null : this.carry(rest);
  }

  private carry(piece: string): string {
    const spoken = this.carried ? `${this.carried} ${piece}` : piece;
    this.carried += lastingTags(piece);
    return spoken;
  }
}
