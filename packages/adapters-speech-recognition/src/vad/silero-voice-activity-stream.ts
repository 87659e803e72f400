import type { VoiceActivityEvent, VoiceActivityOptions, VoiceActivityStream } from '@svc/core';
import type { SileroBatchScorer } from './silero-batch.js';
import { FrameQueue } from './frame-queue.js';
import { segmenterSettings } from './segmenter-settings.js';
import { SileroFrameScorer } from './silero-frame-scorer.js';
import { SILERO_FRAME_MS } from './silero-model.js';
import { SpeechSegmenter } from './speech-segmenter.js';
import { StreamingResampler } from '@svc/adapters-runtime';

/**
 * One session's detector state: input PCM is resampled to the batch scorer's rate (16 kHz; 8 kHz
 * input is scored at 8 kHz by a scorer of that rate: sileroRateFor), cut into 32 ms frames, scored by
 * Silero and segmented into turns. Frame k covers [32k, 32k + 32) ms of the stream's input at any
 * input rate, so the event times are milliseconds since the first pushed sample.
 */
export class SileroVoiceActivityStream implements VoiceActivityStream {
  private readonly resampler: StreamingResampler;
  private readonly frames: FrameQueue;
  private readonly scorer: SileroFrameScorer;
  private readonly segmenter: SpeechSegmenter;
  private framesScored = 0;
  /** Pushes are scored one after another, in order, even when the caller does not await them. */
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly batch: SileroBatchScorer,
    options: VoiceActivityOptions,
  ) {
    batch.streamOpened();
    this.segmenter = new SpeechSegmenter(segmenterSettings(options));
    this.resampler = new StreamingResampler(options.sampleRate, batch.rate.sampleRate);
    this.frames = new FrameQueue(batch.rate.frameSamples);
    this.scorer = new SileroFrameScorer(batch);
  }

  push(samples: Int16Array): Promise<VoiceActivityEvent[]> {
    if (this.closed) return Promise.reject(new Error('The voice activity stream is closed.'));
    // Resampled now, synchronously: the caller may reuse its buffer once push() returns.
    this.frames.write(this.resampler.process(samples));
    const events = this.tail.then(() => this.scoreWaitingFrames());
    this.tail = events.catch(() => undefined);
    return events;
  }

  voicedUntilMs(): number | null {
    return this.segmenter.voicedUntilMs;
  }

  /**
   * Forgets the model state and any speech in progress. The clock keeps running (and audio already
   * pushed stays queued): event times stay relative to the start of the stream's input, which is
   * what the session's input buffer measures positions against.
   */
  reset(): void {
    this.scorer.reset();
    this.segmenter.reset();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reset();
    this.batch.streamClosed();
  }

  private async scoreWaitingFrames(): Promise<VoiceActivityEvent[]> {
    const events: VoiceActivityEvent[] = [];
    while (!this.closed && this.frames.readFrame(this.scorer.frame)) {
      // A stream behind its input (frames queued after this one) does not wait for other sessions.
      const probability = await this.scorer.score(this.frames.hasFrame);
      const startMs = this.framesScored * SILERO_FRAME_MS;
      this.framesScored++;
      if (probability === null || this.closed) continue;
      const event = this.segmenter.next(probability, startMs, startMs + SILERO_FRAME_MS);
      if (event) events.push(event);
    }
    return this.closed ? [] : events;
  }
}
