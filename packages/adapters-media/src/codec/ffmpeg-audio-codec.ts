import {
  bytesToPcm,
  InvalidAudioError,
  pcmToBytes,
  type AudioCodec,
  type DecodedAudio,
  type DecodeOptions,
  type ResponseFormat,
} from '@svc/core';
import { abortError, isAbortError } from '@svc/adapters-runtime';
import { assertSampleRate } from '@svc/adapters-runtime';
import { implausibleAudioHeader } from './audio-header-check.js';
import { detectAudioFormat } from './detect-audio-format.js';
import { decodeCpuLimitSeconds, decoderArguments, DEFAULT_BITRATES, encoderArguments, type EncoderBitrates } from './encoder-arguments.js';
import { FfmpegError, runFfmpeg } from './ffmpeg/run-ffmpeg.js';
import { mp4Faststart } from './mp4-faststart.js';
import { wavHeader } from '@svc/adapters-runtime';

export interface FfmpegAudioCodecOptions {
  /** ffmpeg binary; defaults to @ffmpeg-installer/ffmpeg's (or FFMPEG_PATH). */
  binary?: string;
  bitrates?: Partial<EncoderBitrates>;
  /** Called with each spawned ffmpeg pid (tests check that none outlives its stream). */
  onSpawn?: (pid: number) => void;
}

/** Bytes written to ffmpeg's stdin per write when decoding an in-memory file. */
const DECODE_WRITE_CHUNK = 64 * 1024;

/**
 * AudioCodec over the ffmpeg binary, always as a streaming pipe (no temporary files).
 * `pcm` needs no encoder (little-endian bytes as they come); `wav` is written directly because
 * ffmpeg cannot fill in RIFF sizes on a pipe: it is meant for whole responses, so the samples are
 * collected and sent as one 44-byte header plus data once the input ends.
 */
export class FfmpegAudioCodec implements AudioCodec {
  private readonly bitrates: EncoderBitrates;

  constructor(private readonly options: FfmpegAudioCodecOptions = {}) {
    this.bitrates = { ...DEFAULT_BITRATES, ...options.bitrates };
  }

  encode(format: ResponseFormat, sampleRate: number, pcm: AsyncIterable<Int16Array>, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    assertSampleRate(sampleRate);
    switch (format) {
      case 'pcm':
        return rawPcm(pcm, signal);
      case 'wav':
        return wholeWav(pcm, sampleRate, signal);
      default:
        return runFfmpeg({
          args: encoderArguments(format, sampleRate, this.bitrates),
          stdin: pcmBytes(pcm),
          signal,
          binary: this.options.binary,
          onSpawn: this.options.onSpawn,
        });
    }
  }

  async decode(bytes: Uint8Array, sampleRate: number, signal?: AbortSignal, options: DecodeOptions = {}): Promise<DecodedAudio> {
    assertSampleRate(sampleRate);
    const format = detectAudioFormat(bytes);
    if (!format) {
      throw new InvalidAudioError(
        bytes.length === 0
          ? 'The audio is empty.'
          : 'The content is not a recognized audio format (WAV, MP3, AAC, FLAC, OGG/Opus, MP4/M4A, WebM).',
      );
    }
    // Refused from its header, before ffmpeg runs: a rate or channel count no recording has.
    const implausible = implausibleAudioHeader(bytes, format);
    if (implausible) throw new InvalidAudioError(implausible);
    const input = format === 'mp4' ? mp4Faststart(bytes) : bytes;
    const parts: Uint8Array[] = [];
    let total = 0;
    try {
      for await (const chunk of runFfmpeg({
        args: decoderArguments(sampleRate, options.maxSeconds),
        stdin: slices(input, DECODE_WRITE_CHUNK),
        signal,
        binary: this.options.binary,
        onSpawn: this.options.onSpawn,
      })) {
        parts.push(chunk);
        total += chunk.byteLength;
      }
    } catch (err) {
      if (isAbortError(err) || signal?.aborted) throw signal?.aborted ? abortError(signal) : err;
      if (
        err instanceof FfmpegError &&
        options.maxSeconds !== undefined &&
        (err.exitSignal === 'SIGXCPU' || err.exitSignal === 'SIGKILL')
      ) {
        // The kernel stopped it at its CPU limit: far more work than that much audio takes.
        throw new InvalidAudioError(
          `The ${format} audio needs more than ${decodeCpuLimitSeconds(options.maxSeconds)} s of CPU to decode ${options.maxSeconds} s of it; its header is implausible.`,
        );
      }
      if (err instanceof FfmpegError) throw new InvalidAudioError(`The ${format} audio could not be decoded.`);
      throw err;
    }
    if (total < 2) throw new InvalidAudioError(`The ${format} audio contains no samples.`);
    const joined = Buffer.concat(parts, total);
    return { samples: bytesToPcm(joined), sampleRate, format };
  }
}

async function* pcmBytes(pcm: AsyncIterable<Int16Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of pcm) yield pcmToBytes(chunk);
}

async function* rawPcm(pcm: AsyncIterable<Int16Array>, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  for await (const chunk of pcm) {
    if (signal?.aborted) throw abortError(signal);
    if (chunk.length) yield pcmToBytes(chunk);
  }
  if (signal?.aborted) throw abortError(signal);
}

async function* wholeWav(pcm: AsyncIterable<Int16Array>, sampleRate: number, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of pcm) {
    if (signal?.aborted) throw abortError(signal);
    const bytes = pcmToBytes(chunk);
    parts.push(bytes);
    total += bytes.length;
  }
  if (signal?.aborted) throw abortError(signal);
  const out = new Uint8Array(44 + total);
  out.set(wavHeader(sampleRate, total), 0);
  let offset = 44;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  yield out;
}

async function* slices(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}
