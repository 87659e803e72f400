import {
  characterCount,
  InputTooLongError,
  InvalidRequestError,
  MAX_INPUT_CHARS,
  NothingToSpeakError,
  StreamedSpeechText,
  validateSpeechRequest,
  EDGE_SILENCE_MS,
  type Principal,
  type SynthesizeSpeech,
} from '@svc/core';
import type { VoiceChoice } from '../protocol/requests.js';
import type { AudioOut } from './audio-out.js';

/** Where a piece stands in what the client hears: only the audio's own start and end are trimmed to the voice. */
export interface PiecePlace {
  first: boolean;
  last: boolean;
}

/**
 * Speaks one text into `out`, sentence by sentence as it is synthesized. `place.first`: the first
 * audio of the response, whose first sentence is cut at a clause so it leaves sooner (the REST
 * `stream` path); later pieces of a stream are spoken whole, since audio is already playing. The
 * engine's silence before the first and after the last piece is trimmed; between pieces it stays
 * the pause between two sentences.
 */
export async function speak(
  speech: SynthesizeSpeech,
  text: string,
  voice: VoiceChoice,
  principal: Principal | null,
  out: AudioOut,
  signal: AbortSignal,
  place: PiecePlace = { first: true, last: true },
): Promise<void> {
  const request = validateSpeechRequest({
    input: text,
    ...(voice.name !== null ? { voice: voice.name } : {}),
    // Without a name, the language picks the voice (and the normalization rules).
    ...(voice.language !== null ? { tn_language: voice.language } : {}),
    response_format: 'pcm',
    stream: place.first,
  });
  const edges = { leadingKeepMs: place.first ? EDGE_SILENCE_MS : null, trailingKeepMs: place.last ? EDGE_SILENCE_MS : null };
  const result = await speech.execute(request, principal, signal, edges);
  for await (const bytes of result.body) await out.write(bytes);
}

/**
 * A `synthesize-start` ... `synthesize-stop` stream: text arrives in chunks (a language model's
 * reply), each complete sentence is spoken as soon as it is there (StreamedSpeechText), in order,
 * while the next chunks keep arriving. Pieces waiting when the speaker is free are spoken as one
 * request (the speech use case then synthesizes the next sentence while it sends the current one).
 * `done` settles once everything up to `stop()` has been spoken, or with the first failure.
 */
export class SynthesisStream {
  private readonly text = new StreamedSpeechText();
  private readonly pieces: string[] = [];
  private stopped = false;
  private wake: (() => void) | null = null;
  private inPiece = false;
  readonly done: Promise<void>;

  /** `speakPiece(text, place)`: whether the piece is the stream's first, and its last (the stop came and nothing waits). */
  constructor(private readonly speakPiece: (text: string, place: PiecePlace) => Promise<void>) {
    this.done = this.run();
    // Observed by the connection as soon as it happens; `done` is awaited only at the stop.
    this.done.catch(() => undefined);
  }

  /** A piece is being synthesized and sent (the server, not the client, is the one to wait for). */
  get speaking(): boolean {
    return this.inPiece;
  }

  push(delta: string): void {
    if (this.stopped) throw new InvalidRequestError("'synthesize-chunk' after 'synthesize-stop'.");
    const total = this.text.length + characterCount(delta);
    if (total > MAX_INPUT_CHARS) throw new InputTooLongError(MAX_INPUT_CHARS, total);
    this.pieces.push(...this.text.push(delta));
    this.notify();
  }

  stop(): void {
    if (this.stopped) return;
    const rest = this.text.flush();
    if (rest !== null) this.pieces.push(rest);
    this.stopped = true;
    this.notify();
  }

  private notify(): void {
    this.wake?.();
    this.wake = null;
  }

  private async run(): Promise<void> {
    for (let first = true; ;) {
      if (this.pieces.length > 0) {
        this.inPiece = true;
        try {
          const batch = this.takeBatch();
          await this.speakPiece(batch, { first, last: this.stopped && this.pieces.length === 0 });
          first = false;
        } catch (err) {
          // A piece of only punctuation or tags is silence in a stream, not an error.
          if (!(err instanceof NothingToSpeakError)) throw err;
        } finally {
          this.inPiece = false;
        }
        continue;
      }
      if (this.stopped) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The waiting pieces, as many as fit in one speech request. */
  private takeBatch(): string {
    let batch = this.pieces.shift()!;
    while (this.pieces.length > 0 && characterCount(batch) + 1 + characterCount(this.pieces[0]!) <= MAX_INPUT_CHARS) {
      batch += ' ' + this.pieces.shift()!;
    }
    return batch;
  }
}
