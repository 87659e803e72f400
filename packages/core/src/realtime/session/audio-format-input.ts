import { expectNumber, expectObject, oneOf, rejectUnknownKeys } from '../protocol/field-checks.js';
import { invalidRequest } from '../protocol/realtime-error.js';
import { OPUS_FRAME_SIZES_MS, PCM_RATES, type AudioFormat, type PcmRate } from './session-config.js';

const SUPPORTED_TYPES = ['audio/pcm', 'audio/pcmu', 'audio/opus'] as const;

/** Validates an `audio.input.format` / `audio.output.format` object. */
export function parseAudioFormat(raw: unknown, param: string): AudioFormat {
  const obj = expectObject(raw, param);
  if (obj.type === 'audio/pcma') {
    throw invalidRequest(
      'unsupported_audio_format',
      "'audio/pcma' is not supported; use audio/pcm, audio/pcmu or audio/opus.",
      `${param}.type`,
    );
  }
  const type = oneOf(obj.type, SUPPORTED_TYPES, `${param}.type`);
  if (type === 'audio/pcm') {
    rejectUnknownKeys(obj, ['type', 'rate'], param);
    const rate = obj.rate === undefined ? 24000 : expectNumber(obj.rate, `${param}.rate`);
    if (!(PCM_RATES as readonly number[]).includes(rate)) {
      throw invalidRequest('invalid_value', `'${param}.rate' must be one of ${PCM_RATES.join(', ')}.`, `${param}.rate`);
    }
    return { type, rate: rate as PcmRate };
  }
  if (type === 'audio/pcmu') {
    rejectUnknownKeys(obj, ['type'], param);
    return { type };
  }
  rejectUnknownKeys(obj, ['type', 'frame_size_ms'], param);
  const frame = obj.frame_size_ms === undefined ? 20 : expectNumber(obj.frame_size_ms, `${param}.frame_size_ms`);
  if (!(OPUS_FRAME_SIZES_MS as readonly number[]).includes(frame)) {
    throw invalidRequest(
      'invalid_value',
      `'${param}.frame_size_ms' must be one of ${OPUS_FRAME_SIZES_MS.join(', ')}.`,
      `${param}.frame_size_ms`,
    );
  }
  return { type, frame_size_ms: frame };
}
