import type { RecognitionStream } from '@svc/core';
import { abortError } from '@svc/adapters-runtime';
import { floatToInt16 } from '@svc/adapters-runtime';
import { StreamingResampler } from '@svc/adapters-runtime';
import type { DecoderPool } from './decoder-pool.js';
import type { PocketsphinxHelper } from './pocketsphinx-helper.js';
import { RECOGNIZER_SAMPLE_RATE } from './recognizer-input.js';

/**
 * One turn decoded while the user speaks. The stream borrows a warm decoder from the pool for the
 * whole turn; audio written before one is free waits here (16 kHz) and is fed the moment it is.
 * `finish()` leaves only the final pass; cancelling (or the signal) hands the decoder back at once.
 */
export class PocketsphinxRecognitionStream implements RecognitionStream {
  /** Null when the samples come at 16 kHz already (the session's shared analysis input). */
  private readonly resampler: StreamingResampler | null;
  private helper: PocketsphinxHelper | null = null;
  private waiting: Int16Array[] = [];
  private ended = false;
  private endTurn!: (how: 'finish' | 'cancel') => void;
  private readonly result: Promise<string>;

  constructor(
    pool: DecoderPool,
    sampleRate: number,
    private readonly signal: AbortSignal,
    /** The speaker's adaptation: read when the turn starts, updated when it ends (see SpeakerMeans). */
    speaker: SpeakerMean = { mean: '' },
  ) {
    this.resampler = sampleRate === RECOGNIZER_SAMPLE_RATE ? null : new StreamingResampler(sampleRate, RECOGNIZER_SAMPLE_RATE);
    const turnEnded = new Promise<'finish' | 'cancel'>((resolve) => (this.endTurn = resolve));
    // Before the end of the turn the decoder just drops the utterance. During the final pass (a
    // turn abandoned as too late, a closed session) the audio not written yet is thrown away and
    // the decoder drops the rest: it goes back to the pool without a kill and a model load, which
    // under overload would cost more than the turn itself. Nothing outlives a cancel.
    let aborted!: () => void;
    const abortedPromise = new Promise<'aborted'>((resolve) => (aborted = () => resolve('aborted')));
    const onAbort = (): void => {
      if (!this.ended) return this.cancel();
      aborted();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    this.result = pool
      .use(signal, async (helper) => {
        // A stream of its own: the front end's noise estimate (and with it its voice activity
        // detector and spectral subtraction) starts over from this turn's padded onset instead of
        // carrying whatever the pooled decoder heard last, another caller's audio (see begin()).
        helper.begin(speaker.mean, true);
        this.helper = helper;
        for (const chunk of this.waiting) helper.write(chunk);
        this.waiting = [];
        if ((await turnEnded) === 'cancel' || signal.aborted) {
          await dropOrKill(helper);
          throw abortError(signal);
        }
        const final = helper.end();
        const outcome = await Promise.race([final, abortedPromise]);
        if (outcome === 'aborted' || signal.aborted) {
          final.catch(() => undefined);
          await dropOrKill(helper);
          throw abortError(signal);
        }
        if (helper.cepstralMean) speaker.mean = helper.cepstralMean;
        return outcome;
      })
      // A decoder killed by the abort reports its exit; the caller hears the cancellation.
      .catch((err: unknown) => {
        throw signal.aborted ? abortError(signal) : err;
      })
      .finally(() => {
        this.helper = null;
        signal.removeEventListener('abort', onAbort);
      });
    // Nobody may be listening (a cancelled turn): never an unhandled rejection.
    this.result.catch(() => undefined);
  }

  write(samples: Int16Array): void {
    if (this.ended || samples.length === 0) return;
    const at16k = this.resampler ? floatToInt16(this.resampler.process(samples)) : samples;
    if (this.helper) this.helper.write(at16k);
    else this.waiting.push(at16k);
  }

  get partial(): string {
    return this.helper?.partial ?? '';
  }

  /** Audio not decoded yet (ms): waiting for a decoder, or given to it and not reached. */
  get behindMs(): number {
    if (this.helper) return this.helper.piecesBehindMs;
    return this.waiting.reduce((ms, chunk) => ms + chunk.length, 0) / (RECOGNIZER_SAMPLE_RATE / 1000);
  }

  /** Speech decoded after the partial's last word and made no word of (ms); undefined until the decoder has answered. */
  get unrecognizedSpeechMs(): number | undefined {
    return this.helper?.unrecognizedSpeechMs;
  }

  async finish(): Promise<{ text: string }> {
    if (!this.ended) {
      this.ended = true;
      this.endTurn('finish');
    }
    const text = await this.result;
    return { text: text.trim().toLowerCase() };
  }

  cancel(): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting = [];
    this.endTurn('cancel');
  }
}

/** One session's cepstral mean between its turns ('' before its first finished turn: the model's initial one). */
export interface SpeakerMean {
  mean: string;
}

/**
 * A dropping decoder has at most PIECES_IN_FLIGHT pieces (300 ms of audio, a fraction of that in CPU) left to
 * decode; one that has not answered after this long is stuck (or starved) and is killed.
 */
const DROP_TIMEOUT_MS = 2000;

/** Frees the decoder of a cancelled turn: it drops the utterance, or is killed if stuck (the pool replaces it). */
async function dropOrKill(helper: PocketsphinxHelper): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), DROP_TIMEOUT_MS)));
  const outcome = await Promise.race([
    helper.drop().then(
      () => 'dropped' as const,
      () => 'dropped' as const,
    ),
    late,
  ]);
  clearTimeout(timer);
  if (outcome === 'late') helper.kill();
}
