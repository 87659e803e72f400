import { expect } from 'chai';
import { readImageHeader } from '../../src/media/image-header.js';
import { pngBytes } from './video-fakes.js';

function jpegBytes(width: number, height: number): Uint8Array {
  // SOI, an APP0 segment to skip, then SOF0: length 17, precision 8, height, width.
  return new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0x00,
    0x06,
    0x4a,
    0x46,
    0x49,
    0x46,
    0xff,
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
}

function riff(chunk: string, payload: number[]): Uint8Array {
  const bytes = [...'RIFF']
    .map((c) => c.charCodeAt(0))
    .concat(
      [0, 0, 0, 0],
      [...'WEBP'].map((c) => c.charCodeAt(0)),
    );
  bytes.push(...[...chunk].map((c) => c.charCodeAt(0)), 0, 0, 0, 0, ...payload);
  return new Uint8Array(bytes);
}

describe('readImageHeader (format and dimensions from the header bytes only)', () => {
  it('reads PNG IHDR dimensions, including a 30000x30000 bomb of a few bytes', () => {
    expect(readImageHeader(pngBytes(640, 480))).to.deep.equal({ format: 'png', width: 640, height: 480 });
    expect(readImageHeader(pngBytes(30000, 30000))).to.deep.equal({ format: 'png', width: 30000, height: 30000 });
  });

  it('walks JPEG segments to the SOF marker', () => {
    expect(readImageHeader(jpegBytes(1024, 768))).to.deep.equal({ format: 'jpeg', width: 1024, height: 768 });
    expect(readImageHeader(jpegBytes(65000, 65000))).to.deep.equal({ format: 'jpeg', width: 65000, height: 65000 });
  });

  it('reads the three WEBP flavours (VP8, VP8L, VP8X)', () => {
    const lossy = riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01]);
    expect(readImageHeader(lossy)).to.deep.equal({ format: 'webp', width: 640, height: 480 });
    // VP8L: 0x2f, then (w-1) in 14 bits and (h-1) in the next 14: 100x50.
    const bits = 99 | (49 << 14);
    const lossless = riff('VP8L', [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >>> 24) & 0xff]);
    expect(readImageHeader(lossless)).to.deep.equal({ format: 'webp', width: 100, height: 50 });
    const extended = riff('VP8X', [0, 0, 0, 0, 0x2f, 0x75, 0x00, 0x2f, 0x75, 0x00]);
    expect(readImageHeader(extended)).to.deep.equal({ format: 'webp', width: 30000, height: 30000 });
  });

  it('is null for anything else, whatever it claims', () => {
    expect(readImageHeader(new TextEncoder().encode('GIF89a....'))).to.equal(null);
    expect(readImageHeader(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).to.equal(null);
    expect(readImageHeader(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).to.equal(null);
    expect(readImageHeader(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2]))).to.equal(null);
    expect(readImageHeader(new Uint8Array(0))).to.equal(null);
  });
});
