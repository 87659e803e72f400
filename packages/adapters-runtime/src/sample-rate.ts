// the errors alone: worker threads resample, and the core's main entry is the whole domain
import { InvalidParameterError } from '@svc/core/errors';

/** Rates the resampler and encoders are asked for must be plain integers in a sane range. */
export function assertSampleRate(sampleRate: number): void {
  if (!Number.isInteger(sampleRate) || sampleRate < 4000 || sampleRate > 192000) {
    throw new InvalidParameterError(`Unsupported sample rate ${sampleRate}.`, 'sample_rate');
  }
}
