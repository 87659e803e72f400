import type { RecognitionStream } from '@svc/core';
import { abortError } from '@svc/adapters-runtime';
import { StreamingResampler } from '@svc/adapters-runtime';
import { RECOGNIZER_SAMPLE_RATE } from '../recognizer-input.js';

/**
 * A turn for a recognizer that cannot stream: the audio is resampled to 16 kHz and kept while the
 * user speaks (no partial hypothesis), and decoded in one go by `finish()`. Cancelling, or the
 * signal, drops the audio; `finish()` then rejects with the abort error.
 */
export class BufferedRecognitionStream implements RecognitionStream {
  readonly partial = '';
  private readonly resampler: StreamingResampler;
  private chunks: Float32Array[] = [];
  private length = 0;
  private done = false;

  constructor(
    sampleRate: number,
    private readonly signal: AbortSignal,
    private readonly decode: (samples16k: Float32Array) => Promise<{ text: string }>,
  ) {
    this.resampler = new StreamingResampler(sampleRate, RECOGNIZER_SAMPLE_RATE);
  }

  write(samples: Int16Array): void {
    if (this.done || this.signal.aborted) return;
    const out = Float32Array.from(this.resampler.process(samples));
    this.chunks.push(out);
    this.length += out.length;
  }

  async finish(): Promise<{ text: string }> {
    // Cancelled (or finished already): nothing is left to decode.
    if (this.signal.aborted || this.done) throw abortError(this.signal);
    this.done = true;
    const all = new Float32Array(this.length);
    let offset = 0;
    for (const chunk of this.chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    this.chunks = [];
    if (all.length === 0) return { text: '' };
    return this.decode(all);
  }

  cancel(): void {
    this.done = true;
    this.chunks = [];
  }
}
