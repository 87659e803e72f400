import { expect } from 'chai';
import { InvalidParameterError } from '@svc/core';
import { PcmInput, pcmFormatOf } from '../src/audio/pcm-format.js';

describe('PcmInput (client audio to mono 16-bit)', () => {
  it('reads 8, 16, 24 and 32-bit little-endian signed samples at 16-bit scale', () => {
    const value = -12345;
    const s8 = Buffer.alloc(1);
    s8.writeInt8(value >> 8);
    const s16 = Buffer.alloc(2);
    s16.writeInt16LE(value);
    const s24 = Buffer.alloc(3);
    s24.writeIntLE(value * 256, 0, 3);
    const s32 = Buffer.alloc(4);
    s32.writeInt32LE(value * 65536);
    expect([...new PcmInput({ rate: 16000, width: 1, channels: 1 }).convert(s8)]).to.deep.equal([(value >> 8) * 256]);
    for (const [width, bytes] of [
      [2, s16],
      [3, s24],
      [4, s32],
    ] as const) {
      expect([...new PcmInput({ rate: 16000, width, channels: 1 }).convert(bytes)], `width ${width}`).to.deep.equal([value]);
    }
  });

  it('averages the channels and keeps a frame split across chunks for the next one', () => {
    const input = new PcmInput({ rate: 48000, width: 2, channels: 2 });
    const frames = Buffer.alloc(12);
    [1000, 3000, -2000, -4000, 100, 300].forEach((v, i) => frames.writeInt16LE(v, i * 2));
    const first = input.convert(frames.subarray(0, 7));
    const second = input.convert(frames.subarray(7));
    expect([...first, ...second]).to.deep.equal([2000, -3000, 200]);
  });

  it('refuses formats no microphone sends', () => {
    expect(() => pcmFormatOf({ rate: 1, width: 2, channels: 1 }, 'audio-start')).to.throw(InvalidParameterError, /rate/);
    expect(() => pcmFormatOf({ rate: 16000, width: 5, channels: 1 }, 'audio-start')).to.throw(InvalidParameterError, /width/);
    expect(() => pcmFormatOf({ rate: 16000, width: 2, channels: 0 }, 'audio-start')).to.throw(InvalidParameterError, /channels/);
    expect(() => pcmFormatOf({ rate: '16000', width: 2, channels: 1 }, 'audio-start')).to.throw(InvalidParameterError, /rate/);
    expect(pcmFormatOf({ rate: 44100, width: 3, channels: 2 }, 'audio-chunk')).to.deep.equal({ rate: 44100, width: 3, channels: 2 });
  });
});
