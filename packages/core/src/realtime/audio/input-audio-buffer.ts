import { concatPcm } from '../../shared/audio.js';
import type { NoiseSuppressionStream, OpusPacketDecoder } from '../ports/audio-pipeline.js';
import { formatSampleRate, type AudioFormat } from '../session/session-config.js';
import { muLawDecode } from './g711.js';

/** Committed user audio: PCM for pcm/pcmu input, untouched packets for opus input. */
export interface CapturedAudio {
  pcm: Int16Array | null;
  opusPackets: Uint8Array[] | null;
  sampleRate: number;
  durationMs: number;
}

/**
 * The uncommitted input audio of a session, kept as decoded PCM with absolute sample positions
 * (VAD reports turn boundaries in milliseconds since the first appended sample). pcmu and opus are
 * decoded as they arrive (opus packet by packet with the session's decoder), so every later stage
 * (VAD, recognizer) sees samples. Only without an opus decoder are packets kept opaque.
 */
export class InputAudioBuffer {
  private chunks: Int16Array[] = [];
  /** Absolute index (since session start) of the first sample still held. */
  private firstSample = 0;
  private heldSamples = 0;
  private oddByte: number | null = null;
  private opusPackets: Uint8Array[] = [];
  readonly sampleRate: number;

  constructor(
    readonly format: AudioFormat,
    /** Upper bound on held audio; beyond it the oldest audio is dropped. */
    private readonly maxMs: number,
    private readonly opusDecoder: OpusPacketDecoder | null = null,
    /** `noise_reduction`: applied to decoded samples before anything else sees them. */
    private readonly noiseSuppression: NoiseSuppressionStream | null = null,
  ) {
    this.sampleRate = formatSampleRate(format);
  }

  /** Whether appended audio becomes samples (false only for opus without a decoder). */
  get decodesToPcm(): boolean {
    return this.format.type !== 'audio/opus' || this.opusDecoder !== null;
  }

  release(): void {
    this.opusDecoder?.release();
    this.noiseSuppression?.close();
  }

  /** Appends wire bytes in the buffer's format; returns the newly decoded PCM (empty for opus). */
  append(bytes: Uint8Array): Int16Array {
    if (this.format.type === 'audio/opus' && !this.opusDecoder) {
      if (bytes.length > 0) this.opusPackets.push(bytes);
      const maxPackets = Math.ceil(this.maxMs / this.format.frame_size_ms);
      if (this.opusPackets.length > maxPackets) this.opusPackets.splice(0, this.opusPackets.length - maxPackets);
      return new Int16Array(0);
    }
    const decoded =
      this.format.type === 'audio/opus'
        ? this.opusDecoder!.decode(bytes)
        : this.format.type === 'audio/pcmu'
          ? muLawDecode(bytes)
          : this.decodePcm16(bytes);
    return this.appendSamples(decoded);
  }

  /** Appends PCM already at the buffer's rate (a media track's samples); returns what is held of it. */
  appendSamples(decoded: Int16Array): Int16Array {
    const pcm = this.noiseSuppression && decoded.length > 0 ? this.noiseSuppression.process(decoded) : decoded;
    if (pcm.length > 0) {
      this.chunks.push(pcm);
      this.heldSamples += pcm.length;
      const maxSamples = Math.floor((this.maxMs / 1000) * this.sampleRate);
      if (this.heldSamples > maxSamples) this.dropBeforeSample(this.endSample - maxSamples);
    }
    return pcm;
  }

  get durationMs(): number {
    if (this.format.type === 'audio/opus' && !this.opusDecoder) return this.opusPackets.length * this.format.frame_size_ms;
    return (this.heldSamples / this.sampleRate) * 1000;
  }

  /** Milliseconds of audio appended since the session started (the VAD time base). */
  get endMs(): number {
    return (this.endSample / this.sampleRate) * 1000;
  }

  /** Takes everything held and empties the buffer. */
  takeAll(): CapturedAudio {
    const captured: CapturedAudio = {
      pcm: this.decodesToPcm ? concatPcm(this.chunks) : null,
      opusPackets: this.decodesToPcm ? null : this.opusPackets,
      sampleRate: this.sampleRate,
      durationMs: this.durationMs,
    };
    this.clear();
    return captured;
  }

  /** Takes the audio between two absolute times and drops everything before `endMs`. */
  takeRange(startMs: number, endMs: number): CapturedAudio {
    const start = Math.max(this.firstSample, this.msToSample(startMs));
    const end = Math.min(this.endSample, Math.max(start, this.msToSample(endMs)));
    const all = concatPcm(this.chunks);
    const pcm = all.slice(start - this.firstSample, end - this.firstSample);
    this.dropBeforeSample(end);
    return { pcm, opusPackets: null, sampleRate: this.sampleRate, durationMs: (pcm.length / this.sampleRate) * 1000 };
  }

  /** The audio from an absolute time to the end, without taking it (a turn's onset for its recognizer). */
  peekFrom(ms: number): Int16Array {
    const start = Math.max(0, Math.min(this.heldSamples, this.msToSample(ms) - this.firstSample));
    return concatPcm(this.chunks).slice(start);
  }

  /** Forgets audio older than `ms` (absolute), e.g. silence before the VAD pre-roll. */
  dropBefore(ms: number): void {
    this.dropBeforeSample(this.msToSample(ms));
  }

  clear(): void {
    this.firstSample = this.endSample;
    this.chunks = [];
    this.heldSamples = 0;
    this.opusPackets = [];
  }

  private get endSample(): number {
    return this.firstSample + this.heldSamples;
  }

  private msToSample(ms: number): number {
    return Math.round((ms / 1000) * this.sampleRate);
  }

  private dropBeforeSample(sample: number): void {
    let toDrop = Math.min(sample - this.firstSample, this.heldSamples);
    while (toDrop > 0 && this.chunks.length > 0) {
      const head = this.chunks[0]!;
      if (head.length <= toDrop) {
        this.chunks.shift();
        toDrop -= head.length;
        this.firstSample += head.length;
        this.heldSamples -= head.length;
      } else {
        this.chunks[0] = head.subarray(toDrop);
        this.firstSample += toDrop;
        this.heldSamples -= toDrop;
        toDrop = 0;
      }
    }
  }

  /** Little-endian PCM16; an odd trailing byte is carried into the next append. */
  private decodePcm16(bytes: Uint8Array): Int16Array {
    let data = bytes;
    if (this.oddByte !== null) {
      data = new Uint8Array(bytes.length + 1);
      data[0] = this.oddByte;
      data.set(bytes, 1);
      this.oddByte = null;
    }
    const n = data.length >> 1;
    if (data.length % 2 === 1) this.oddByte = data[data.length - 1]!;
    const out = new Int16Array(n);
    for (let i = 0, j = 0; i < n; i++, j += 2) {
      const v = data[j]! | (data[j + 1]! << 8);
      out[i] = v >= 0x8000 ? v - 0x10000 : v;
    }
    return out;
  }
}
