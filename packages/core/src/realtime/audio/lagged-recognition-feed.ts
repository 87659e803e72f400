import type { RecognitionStream } from '../ports/audio-pipeline.js';

/** Silence after the end of speech the recognizer still hears: its last word's final frames. */
export const RECOGNITION_TAIL_MS = 200;

/**
 * Feeds a turn's streaming recognizer `lagMs` behind the audio, so the silence that ends the turn
 * is never decoded. Server VAD reports `speech_stopped` only after `silence_duration_ms` of
 * silence; a recognizer fed as the audio arrives has decoded all of it by then (500 ms by default,
 * a tenth of a typical turn, and decoding silence costs as much as speech). Held back by
 * `silence_duration_ms - RECOGNITION_TAIL_MS`, it has heard the speech and a short tail when the
 * turn ends, and the rest is dropped unheard. Speech that resumes after a shorter pause is fed in
 * full, the pause included. Samples are at the analysis rate, positions in ms of analysis time.
 */
export class LaggedRecognitionFeed {
  private held: Int16Array[] = [];
  private heldSamples = 0;
  /** Analysis-time position (samples) of the first held sample. */
  private heldStart: number;
  private readonly lagSamples: number;

  constructor(
    private readonly stream: RecognitionStream,
    private readonly sampleRate: number,
    /** Where the first written sample sits (the turn's padded onset), ms of analysis time. */
    startMs: number,
    lagMs: number,
  ) {
    this.heldStart = Math.round((startMs / 1000) * sampleRate);
    this.lagSamples = Math.max(0, Math.round((lagMs / 1000) * sampleRate));
  }

  get partial(): string {
    return this.stream.partial;
  }

  /** Audio written to the recognizer that its partial words do not reflect yet (ms; the lag held here is not written). */
  get behindMs(): number {
    return this.stream.behindMs ?? 0;
  }

  /** Speech the recognizer heard after its partial's last word and made no word of (ms; undefined: it does not say). */
  get unrecognizedSpeechMs(): number | undefined {
    return this.stream.unrecognizedSpeechMs;
  }

  /** The next samples of the turn (contiguous with the previous ones). */
  write(samples: Int16Array): void {
    if (samples.length === 0) return;
    if (this.lagSamples === 0) {
      this.stream.write(samples);
      this.heldStart += samples.length;
      return;
    }
    this.held.push(samples);
    this.heldSamples += samples.length;
    this.release(this.heldSamples - this.lagSamples);
  }

  /**
   * The speech may have ended at `endMs` (a pause begins): the recognizer hears up to it plus the
   * tail now, so the partial words have its last word before the turn is known to be over (what
   * it hears is the same audio, in the same order, as finish() would give it: only sooner).
   */
  catchUp(endMs: number): void {
    this.release(this.samplesUntil(endMs) - this.heldStart);
  }

  /** The turn ended where speech ended (`endMs`): the recognizer hears up to it plus the tail, then its final pass runs. */
  finish(endMs: number): Promise<{ text: string }> {
    this.release(this.samplesUntil(endMs) - this.heldStart);
    this.held = [];
    this.heldSamples = 0;
    return this.stream.finish();
  }

  cancel(): void {
    this.held = [];
    this.heldSamples = 0;
    this.stream.cancel();
  }

  /** Where the tail after speech ending at `endMs` ends, in samples of analysis time. */
  private samplesUntil(endMs: number): number {
    return Math.round(((endMs + RECOGNITION_TAIL_MS) / 1000) * this.sampleRate);
  }

  /** Writes the oldest `count` held samples to the recognizer. */
  private release(count: number): void {
    let left = Math.min(count, this.heldSamples);
    while (left > 0) {
      const head = this.held[0]!;
      const piece = head.length <= left ? head : head.subarray(0, left);
      this.stream.write(piece);
      if (piece === head) this.held.shift();
      else this.held[0] = head.subarray(left);
      left -= piece.length;
      this.heldSamples -= piece.length;
      this.heldStart += piece.length;
    }
  }
}
