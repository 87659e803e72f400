import { expect } from 'chai';
import { detectAudioFormat } from '../../src/index.js';

const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('detectAudioFormat (magic bytes)', () => {
  it('recognizes containers from their first bytes', () => {
    expect(detectAudioFormat(bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '))).to.equal('wav');
    expect(detectAudioFormat(bytes('ID3', [4, 0, 0, 0, 0, 0]))).to.equal('mp3');
    expect(detectAudioFormat(bytes([0xff, 0xfb, 0x90, 0x64]))).to.equal('mp3');
    expect(detectAudioFormat(bytes([0xff, 0xf3, 0x64, 0xc4]))).to.equal('mp3');
    expect(detectAudioFormat(bytes([0xff, 0xf1, 0x50, 0x80]))).to.equal('aac');
    expect(detectAudioFormat(bytes([0xff, 0xf9, 0x50, 0x80]))).to.equal('aac');
    expect(detectAudioFormat(bytes('fLaC', [0, 0, 0, 34]))).to.equal('flac');
    expect(detectAudioFormat(bytes('OggS', [0, 2], 'xxxxxxxxxxxxxxxxxxxxxxOpusHead'))).to.equal('opus');
    expect(detectAudioFormat(bytes('OggS', [0, 2], 'xxxxxxxxxxxxxxxxxxxxxx\x01vorbis'))).to.equal('ogg');
    expect(detectAudioFormat(bytes([0, 0, 0, 0x20], 'ftypM4A '))).to.equal('mp4');
    expect(detectAudioFormat(bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]))).to.equal('webm');
    expect(detectAudioFormat(bytes('FORM', [0, 0, 0, 0], 'AIFF'))).to.equal('aiff');
  });

  it('rejects text, images and empty input', () => {
    expect(detectAudioFormat(new Uint8Array(0))).to.equal(null);
    expect(detectAudioFormat(bytes('Hello world, plain text.'))).to.equal(null);
    expect(detectAudioFormat(bytes([0x89], 'PNG\r\n'))).to.equal(null);
    expect(detectAudioFormat(bytes([0xff, 0xd8, 0xff, 0xe0]))).to.equal(null);
    expect(detectAudioFormat(bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '))).to.equal(null);
  });
});
