import { floatToInt16 } from '@svc/adapters-runtime';
import type { Resampler, ResamplerStream } from '@svc/core';
import { StreamingResampler } from '@svc/adapters-runtime';

/**
 * The realtime input's one resampler (the `Resampler` port): the session's rate to the 16 kHz the
 * detector and the recognizer share, with the same streaming windowed-sinc filter they use
 * themselves, as int16 samples.
 */
export class PcmResampler implements Resampler {
  open(inputRate: number, outputRate: number): ResamplerStream {
    const resampler = new StreamingResampler(inputRate, outputRate);
    return { process: (samples) => floatToInt16(resampler.process(samples)) };
  }
}
