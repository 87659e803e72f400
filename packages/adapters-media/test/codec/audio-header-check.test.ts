import { expect } from 'chai';
import { InvalidAudioError } from '@svc/core';
import { FfmpegAudioCodec, runFfmpeg } from '../../src/index.js';
import { declaredAudio, implausibleAudioHeader } from '../../src/codec/audio-header-check.js';
import { decodeCpuLimitSeconds, decoderArguments } from '../../src/codec/encoder-arguments.js';
import { collect, sine } from '@svc/adapters-testing';

/** A PCM16 WAV header declaring `rate` and `channels`, optionally after a LIST chunk, and `dataBytes` of noise. */
function wav(rate: number, channels: number, dataBytes = 2000, listChunk = false): Uint8Array {
  const list = listChunk ? Buffer.concat([Buffer.from('LIST'), u32le(5), Buffer.from('INFOx'), Buffer.alloc(1)]) : Buffer.alloc(0);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * channels * 2, 16);
  fmt.writeUInt16LE(channels * 2, 20);
  fmt.writeUInt16LE(16, 22);
  const data = Buffer.concat([Buffer.from('data'), u32le(dataBytes), Buffer.alloc(dataBytes, 0x11)]);
  const body = Buffer.concat([Buffer.from('WAVE'), list, fmt, data]);
  return Buffer.concat([Buffer.from('RIFF'), u32le(body.length), body]);
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

/** fLaC + a STREAMINFO block declaring `rate` and `channels`. */
function flacHeader(rate: number, channels: number): Uint8Array {
  const info = Buffer.alloc(34);
  info.writeUInt16BE(4096, 0);
  info.writeUInt16BE(4096, 2);
  info[10] = (rate >> 12) & 0xff;
  info[11] = (rate >> 4) & 0xff;
  info[12] = ((rate & 0x0f) << 4) | (((channels - 1) & 0x07) << 1);
  info[13] = 0xf0; // 16 bits per sample (15 + 1), 0 samples
  return Buffer.concat([Buffer.from('fLaC'), Buffer.from([0x80, 0, 0, 34]), info]);
}

/** FORM/AIFF with a COMM chunk declaring `rate` (80-bit extended) and `channels`. */
function aiffHeader(rate: number, channels: number): Uint8Array {
  const comm = Buffer.alloc(26);
  comm.write('COMM', 0, 'latin1');
  comm.writeUInt32BE(18, 4);
  comm.writeUInt16BE(channels, 8);
  comm.writeUInt32BE(1000, 10);
  comm.writeUInt16BE(16, 14);
  const e = Math.floor(Math.log2(rate));
  comm.writeUInt16BE(16383 + e, 16);
  const mantissa = BigInt(rate) << BigInt(63 - e);
  comm.writeBigUInt64BE(mantissa, 18);
  const body = Buffer.concat([Buffer.from('AIFF'), comm]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(body.length);
  return Buffer.concat([Buffer.from('FORM'), size, body]);
}

/** The first Ogg page's identification packet (no CRC: only the header fields are read here). */
function oggHeader(packet: Buffer): Uint8Array {
  return Buffer.concat([Buffer.from('OggS'), Buffer.alloc(24), packet]);
}
const opusHead = (channels: number) =>
  Buffer.concat([Buffer.from('OpusHead'), Buffer.from([1, channels]), Buffer.alloc(2), u32le(48000), Buffer.alloc(3)]);
const vorbisId = (rate: number, channels: number) =>
  Buffer.concat([Buffer.from('\x01vorbis', 'latin1'), u32le(0), Buffer.from([channels]), u32le(rate), Buffer.alloc(13)]);

describe('implausible audio headers are refused before decoding (issue 17, defect 3)', () => {
  it('reads the rate and channels of WAV (also after a LIST chunk), AIFF, FLAC, Ogg Opus and Ogg Vorbis', () => {
    expect(declaredAudio(wav(16000, 2), 'wav')).to.deep.equal({ sampleRate: 16000, channels: 2 });
    expect(declaredAudio(wav(44100, 1, 10, true), 'wav')).to.deep.equal({ sampleRate: 44100, channels: 1 });
    expect(declaredAudio(aiffHeader(44100, 2), 'aiff')).to.deep.equal({ sampleRate: 44100, channels: 2 });
    expect(declaredAudio(flacHeader(96000, 6), 'flac')).to.deep.equal({ sampleRate: 96000, channels: 6 });
    expect(declaredAudio(oggHeader(opusHead(2)), 'opus')).to.deep.equal({ sampleRate: null, channels: 2 });
    expect(declaredAudio(oggHeader(vorbisId(22050, 1)), 'ogg')).to.deep.equal({ sampleRate: 22050, channels: 1 });
    expect(declaredAudio(new Uint8Array([0xff, 0xfb, 0x90, 0x00]), 'mp3')).to.equal(null);
  });

  it('accepts 8 kHz and 192 kHz, refuses 7999 Hz, 192001 Hz and 1 Hz, saying what the header declared', () => {
    expect(implausibleAudioHeader(wav(8000, 1), 'wav')).to.equal(null);
    expect(implausibleAudioHeader(wav(192_000, 2), 'wav')).to.equal(null);
    for (const rate of [1, 7999, 192_001, 4_000_000]) {
      expect(implausibleAudioHeader(wav(rate, 1), 'wav')).to.equal(
        `The WAV header declares a sample rate of ${rate} Hz; audio must be between 8000 and 192000 Hz.`,
      );
    }
    expect(implausibleAudioHeader(flacHeader(1, 1), 'flac')).to.match(/FLAC header declares a sample rate of 1 Hz/);
    expect(implausibleAudioHeader(aiffHeader(2, 1), 'aiff')).to.match(/AIFF header declares a sample rate of 2 Hz/);
    expect(implausibleAudioHeader(oggHeader(vorbisId(1, 1)), 'ogg')).to.match(/sample rate of 1 Hz/);
  });

  it('refuses 0 channels and more than 32', () => {
    expect(implausibleAudioHeader(wav(16000, 32), 'wav')).to.equal(null);
    expect(implausibleAudioHeader(wav(16000, 0), 'wav')).to.equal('The WAV header declares 0 channels; audio must have between 1 and 32.');
    expect(implausibleAudioHeader(wav(16000, 5000), 'wav')).to.match(/declares 5000 channels/);
    expect(implausibleAudioHeader(aiffHeader(16000, 64), 'aiff')).to.match(/declares 64 channels/);
    expect(implausibleAudioHeader(oggHeader(opusHead(0)), 'opus')).to.match(/declares 0 channels/);
    expect(implausibleAudioHeader(oggHeader(opusHead(200)), 'opus')).to.match(/declares 200 channels/);
  });

  it('a header cut short or chunks that never reach fmt are left to the decoder (never a crash)', () => {
    const cut = wav(16000, 1).subarray(0, 20);
    expect(implausibleAudioHeader(cut, 'wav')).to.equal(null);
    expect(implausibleAudioHeader(flacHeader(16000, 1).subarray(0, 10), 'flac')).to.equal(null);
    expect(implausibleAudioHeader(aiffHeader(16000, 1).subarray(0, 20), 'aiff')).to.equal(null);
  });
});

describe('FfmpegAudioCodec.decode bounds its work before ffmpeg runs (real ffmpeg)', function () {
  this.timeout(60_000);
  const spawned: number[] = [];
  const codec = new FfmpegAudioCodec({ onSpawn: (pid) => spawned.push(pid) });
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };

  it('a 200 KB WAV declaring 1 Hz (55 hours) is refused for a fraction of the CPU a plausible one costs, without starting ffmpeg', async () => {
    // The baseline, measured in this run: this process's CPU to decode a plausible WAV of the same size.
    let cpu = process.cpuUsage();
    await codec.decode(wav(16000, 1, 200_000), 24000, undefined, { maxSeconds: 121 });
    const plausibleMs = cpuMs(cpu);
    const bomb = wav(1, 1, 200_000);
    spawned.length = 0;
    cpu = process.cpuUsage();
    const err = await codec.decode(bomb, 24000, undefined, { maxSeconds: 121 }).catch((e: unknown) => e);
    expect(cpuMs(cpu), `a plausible WAV of that size: ${plausibleMs.toFixed(1)} ms`).to.be.below(plausibleMs / 2);
    expect(err).to.be.instanceOf(InvalidAudioError);
    expect((err as Error).message).to.include('sample rate of 1 Hz');
    expect(spawned, 'no ffmpeg was started').to.deep.equal([]);
  });

  it('real audio at the edges of the range still decodes (8 kHz mono, 192 kHz FLAC stereo)', async () => {
    const low = await codec.decode(wavOf(sine(300, 8000, 1), 8000), 16000);
    expect(low.samples.length).to.be.closeTo(16000, 200);
    const high = await flacOf(sine(440, 192_000, 1), 192_000, 2);
    const decoded = await codec.decode(high, 16000);
    expect(decoded.samples.length).to.be.closeTo(16000, 200);
  });

  it('ffmpeg gets a CPU-time limit from the output limit: at least 2 s, 0.02 s per second of audio', () => {
    expect(decodeCpuLimitSeconds(61)).to.equal(2);
    expect(decodeCpuLimitSeconds(121)).to.equal(3);
    expect(decodeCpuLimitSeconds(301)).to.equal(7);
    expect(decoderArguments(24000, 121).slice(0, 2)).to.deep.equal(['-timelimit', '3']);
    expect(decoderArguments(24000)).to.not.include('-timelimit');
  });
});

function wavOf(samples: Int16Array, rate: number): Uint8Array {
  const out = Buffer.from(wav(rate, 1, samples.byteLength));
  Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).copy(out, out.length - samples.byteLength);
  return out;
}

/** A real FLAC encoded by ffmpeg from mono samples, upmixed to `channels`. */
async function flacOf(samples: Int16Array, rate: number, channels: number): Promise<Uint8Array> {
  return collect(
    runFfmpeg({
      args: [
        '-f',
        's16le',
        '-ar',
        String(rate),
        '-ac',
        '1',
        '-i',
        'pipe:0',
        '-ac',
        String(channels),
        '-c:a',
        'flac',
        '-f',
        'flac',
        'pipe:1',
      ],
      stdin: (async function* () {
        yield new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
      })(),
    }),
  );
}
