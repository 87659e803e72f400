import type { ResponseFormat } from '@svc/core';

/** Formats ffmpeg encodes (pcm and wav are written directly). */
export type FfmpegEncodedFormat = Exclude<ResponseFormat, 'pcm' | 'wav'>;

export interface EncoderBitrates {
  mp3: string;
  opus: string;
  aac: string;
}

/** Speech-sized defaults: mono voice is transparent well below music bitrates. */
export const DEFAULT_BITRATES: EncoderBitrates = { mp3: '64k', opus: '32k', aac: '64k' };

/** Rates libopus accepts; any other input rate is resampled by ffmpeg to 48 kHz. */
const OPUS_RATES = new Set([8000, 12000, 16000, 24000, 48000]);

/**
 * ffmpeg arguments encoding raw mono s16le PCM at `sampleRate` from stdin to `format` on stdout.
 * Every output is a streamable container: mp3 (libmp3lame, no Xing header, which a pipe could not
 * patch), Ogg Opus, AAC in ADTS frames, FLAC (its STREAMINFO keeps unknown length and MD5, which
 * decoders accept).
 */
export function encoderArguments(format: FfmpegEncodedFormat, sampleRate: number, bitrates = DEFAULT_BITRATES): string[] {
  const input = ['-f', 's16le', '-ar', String(sampleRate), '-ac', '1', '-i', 'pipe:0'];
  switch (format) {
    case 'mp3':
      return [...input, '-c:a', 'libmp3lame', '-b:a', bitrates.mp3, '-write_xing', '0', '-f', 'mp3', 'pipe:1'];
    case 'opus':
      return [
        ...input,
        ...(OPUS_RATES.has(sampleRate) ? [] : ['-ar', '48000']),
        '-c:a',
        'libopus',
        '-b:a',
        bitrates.opus,
        '-f',
        'ogg',
        'pipe:1',
      ];
    case 'aac':
      return [...input, '-c:a', 'aac', '-b:a', bitrates.aac, '-f', 'adts', 'pipe:1'];
    case 'flac':
      return [...input, '-c:a', 'flac', '-f', 'flac', 'pipe:1'];
  }
}

/**
 * CPU seconds ffmpeg may spend per second of decoded output (`-timelimit`, RLIMIT_CPU: the kernel
 * stops it past that). Four times what the costliest real input took (a long multichannel
 * high-rate FLAC, docs/errors.md, `invalid_audio`): real audio never reaches it, and it still refuses
 * a file whose container makes ffmpeg work for seconds (a rate no header check caught) before any
 * output limit applies.
 */
export const DECODE_CPU_SECONDS_PER_SECOND = 0.02;
/** ffmpeg's -timelimit counts whole seconds: never below this. */
const MIN_DECODE_CPU_SECONDS = 2;

/** The CPU-time limit of a decode bounded at `maxSeconds` of output. */
export function decodeCpuLimitSeconds(maxSeconds: number): number {
  return Math.max(MIN_DECODE_CPU_SECONDS, Math.ceil(maxSeconds * DECODE_CPU_SECONDS_PER_SECOND));
}

/**
 * ffmpeg arguments decoding any audio file on stdin to mono s16le PCM at `sampleRate` on stdout.
 * Only the pipe protocol is allowed: an uploaded "audio" file that is really a playlist (HLS,
 * concat) must not make ffmpeg open URLs or local files. `maxSeconds` stops decoding there and
 * bounds ffmpeg's CPU time by it (decodeCpuLimitSeconds).
 */
export function decoderArguments(sampleRate: number, maxSeconds?: number): string[] {
  return [
    ...(maxSeconds !== undefined ? ['-timelimit', String(decodeCpuLimitSeconds(maxSeconds))] : []),
    '-protocol_whitelist',
    'pipe',
    '-i',
    'pipe:0',
    '-vn',
    '-map',
    '0:a:0',
    ...(maxSeconds !== undefined ? ['-t', String(maxSeconds)] : []),
    '-f',
    's16le',
    '-ac',
    '1',
    '-ar',
    String(sampleRate),
    'pipe:1',
  ];
}
