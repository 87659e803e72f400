import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FfmpegAudioCodec, ffmpegPath, mp4Faststart } from '../../src/index.js';

/** Top-level box types in order. */
function boxOrder(bytes: Uint8Array): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const types: string[] = [];
  for (let offset = 0; offset + 8 <= bytes.length; offset += view.getUint32(offset)) {
    types.push(Buffer.from(bytes.subarray(offset + 4, offset + 8)).toString('latin1'));
  }
  return types;
}

describe('M4A with moov at the end (what recorders write)', function () {
  this.timeout(30000);
  let m4a: Uint8Array;

  before(() => {
    // The fixture is made by ffmpeg writing a regular (seekable) file, as a recorder would.
    const dir = mkdtempSync(join(tmpdir(), 'svc-m4a-test-'));
    try {
      const file = join(dir, 'clip.m4a');
      execFileSync(ffmpegPath(), [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        'sine=f=220:d=40',
        '-ac',
        '1',
        '-ar',
        '44100',
        '-c:a',
        'aac',
        '-b:a',
        '128k',
        '-y',
        file,
      ]);
      m4a = readFileSync(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is reordered in memory so moov precedes mdat, without touching the input', () => {
    const before = Buffer.from(m4a);
    expect(boxOrder(m4a).indexOf('moov')).to.be.greaterThan(boxOrder(m4a).indexOf('mdat'));
    const moved = mp4Faststart(m4a);
    expect(boxOrder(moved).indexOf('moov')).to.be.lessThan(boxOrder(moved).indexOf('mdat'));
    expect(moved.length).to.equal(m4a.length);
    expect(Buffer.compare(Buffer.from(m4a), before)).to.equal(0);
  });

  it('decodes fully through the ffmpeg pipe', async () => {
    const decoded = await new FfmpegAudioCodec().decode(m4a, 16000);
    expect(decoded.format).to.equal('mp4');
    expect(decoded.samples.length / 16000).to.be.within(39.5, 40.5);
  });
});
