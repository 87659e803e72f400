import { InvalidParameterError } from '@svc/core';

/** The `rate`, `width` (bytes per sample) and `channels` of Wyoming audio events. */
export interface PcmFormat {
  rate: number;
  width: number;
  channels: number;
}

/** Rates outside this range are not audio a microphone sends (and would make the resampler's work unbounded). */
export const RATE_RANGE = { min: 8000, max: 192_000 } as const;
const MAX_CHANNELS = 8;

/** The format fields of an `audio-start` or `audio-chunk`, checked. */
export function pcmFormatOf(data: Record<string, unknown>, event: string): PcmFormat {
  const { rate, width, channels } = data;
  if (!Number.isInteger(rate) || (rate as number) < RATE_RANGE.min || (rate as number) > RATE_RANGE.max) {
    throw new InvalidParameterError(`'${event}' needs an integer 'rate' from ${RATE_RANGE.min} to ${RATE_RANGE.max} Hz.`, 'rate');
  }
  if (width !== 1 && width !== 2 && width !== 3 && width !== 4) {
    throw new InvalidParameterError(`'${event}' needs a 'width' of 1, 2, 3 or 4 bytes per sample.`, 'width');
  }
  if (!Number.isInteger(channels) || (channels as number) < 1 || (channels as number) > MAX_CHANNELS) {
    throw new InvalidParameterError(`'${event}' needs an integer 'channels' from 1 to ${MAX_CHANNELS}.`, 'channels');
  }
  return { rate: rate as number, width, channels: channels as number };
}

export const sameFormat = (a: PcmFormat, b: PcmFormat): boolean => a.rate === b.rate && a.width === b.width && a.channels === b.channels;

/**
 * Little-endian signed PCM of any width and channel count to mono 16-bit (channels averaged),
 * as the recognizers take it; the rate is left to them. 8-bit samples are signed, as the
 * protocol's reference converter (audioop) reads them. A frame split across two chunks is kept
 * until its second half arrives.
 */
export class PcmInput {
  private carry: Buffer = Buffer.alloc(0);

  constructor(readonly format: PcmFormat) {}

  convert(bytes: Buffer): Int16Array {
    const { width, channels } = this.format;
    const input = this.carry.length > 0 ? Buffer.concat([this.carry, bytes]) : bytes;
    const frameBytes = width * channels;
    const frames = Math.floor(input.length / frameBytes);
    this.carry = Buffer.from(input.subarray(frames * frameBytes));
    const out = new Int16Array(frames);
    if (width === 2 && channels === 1) {
      for (let i = 0; i < frames; i++) out[i] = input.readInt16LE(i * 2);
      return out;
    }
    for (let f = 0; f < frames; f++) {
      let sum = 0;
      for (let c = 0; c < channels; c++) sum += sample16(input, (f * channels + c) * width, width);
      out[f] = Math.round(sum / channels);
    }
    return out;
  }
}

/** One sample scaled to 16 bits. */
function sample16(bytes: Buffer, at: number, width: number): number {
  switch (width) {
    case 1:
      return bytes.readInt8(at) * 256;
    case 2:
      return bytes.readInt16LE(at);
    case 3:
      return bytes.readIntLE(at, 3) >> 8;
    default:
      return bytes.readInt32LE(at) >> 16;
  }
}
