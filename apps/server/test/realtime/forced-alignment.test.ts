import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { concatPcm } from '@svc/core';
import { lastLoudMs } from '../../bench/voice-caller.js';
import { alignedSpeechEndMs } from '../helpers/forced-alignment.js';
import { LIBRIVOX_DIR, librivoxSentences } from '../helpers/librivox.js';
import { wavFile } from '../helpers/wav.js';

const RATE = 16000;
const silence = (ms: number) => new Int16Array((RATE * ms) / 1000);
const asBuffer = (x: Int16Array) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);

// The benches' end of speech (turn-latency, voice-loop): where the last word ends, not where the
// room noise after it fades.
describe('forced alignment: where a recorded sentence ends', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-align-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const sentence = (id: string) => librivoxSentences().find((s) => s.id.endsWith(id))!;

  it('moves with the speech: silence before the sentence delays its end by as much, silence after it does not', () => {
    const s = sentence('0880');
    const shifted = join(dir, 'shifted.wav');
    writeFileSync(shifted, wavFile(concatPcm([silence(400), s.samples, silence(800)]), RATE));
    const end = alignedSpeechEndMs(join(LIBRIVOX_DIR, `${s.id}.wav`), s.words);
    expect(end).to.be.within(1000, s.seconds * 1000);
    expect(alignedSpeechEndMs(shifted, s.words) - end).to.be.within(380, 420);
  });

  it('ends "... amiable himself" where the word ends, before the room noise after it that the peak rule counts', () => {
    const s = sentence('0930');
    const aligned = alignedSpeechEndMs(join(LIBRIVOX_DIR, `${s.id}.wav`), s.words);
    expect(aligned).to.be.below(lastLoudMs(asBuffer(s.samples)) - 200);
  });

  it('says which recording and words it could not align', () => {
    const noise = join(dir, 'silence.wav');
    writeFileSync(noise, wavFile(silence(500), RATE));
    expect(() => alignedSpeechEndMs(noise, 'he was not an ill disposed young man')).to.throw(/could not align .*silence\.wav/);
  });
});
