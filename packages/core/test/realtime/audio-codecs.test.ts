import { expect } from 'chai';
import { muLawDecode, muLawEncode, SentenceChunker } from '../../src/realtime/index.js';
import { decodeBase64, encodeBase64 } from '../../src/shared/base64.js';
import { InputAudioBuffer } from '../../src/realtime/audio/input-audio-buffer.js';

describe('realtime audio helpers', () => {
  it('base64 round-trips like Buffer and refuses invalid input', () => {
    for (const len of [0, 1, 2, 3, 4, 5, 100, 9999]) {
      const bytes = new Uint8Array(len).map((_, i) => (i * 37) & 0xff);
      const text = encodeBase64(bytes);
      expect(text).to.equal(Buffer.from(bytes).toString('base64'));
      expect(Array.from(decodeBase64(text)!)).to.deep.equal(Array.from(bytes));
    }
    for (const bad of ['abc', 'ab$=', 'é===', '====', 'a===']) expect(decodeBase64(bad), bad).to.equal(null);
  });

  it('mu-law round-trips within the codec quantization and matches the reference points', () => {
    expect(Array.from(muLawEncode(new Int16Array([0, 32767, -32768])))).to.deep.equal([0xff, 0x80, 0x00]);
    const samples = new Int16Array([0, 100, -100, 1000, -1000, 8000, -8000, 30000, -30000]);
    const back = muLawDecode(muLawEncode(samples));
    samples.forEach((s, i) => expect(Math.abs(back[i]! - s)).to.be.at.most(Math.max(8, Math.abs(s) * 0.07)));
  });

  it('cuts streamed text into sentences', () => {
    const c = new SentenceChunker();
    expect(c.push('Hello there. How')).to.deep.equal(['Hello there.']);
    expect(c.push(' are you? I am')).to.deep.equal(['How are you?']);
    expect(c.push(' fine')).to.deep.equal([]);
    expect(c.flush()).to.equal('I am fine');
    expect(c.flush()).to.equal(null);
    expect(new SentenceChunker().push(`${'word '.repeat(60)}`).length).to.equal(1);
  });

  it('cuts with the speech sentence splitter: "Dr." and "3.14" stay whole (the speech endpoint agrees)', () => {
    const c = new SentenceChunker();
    expect(c.push('Call Dr. ')).to.deep.equal([]);
    expect(c.push('Smith at 3.14 today. Then')).to.deep.equal(['Call Dr. Smith at 3.14 today.']);
    expect(c.flush()).to.equal('Then');
  });

  it('speaks the first clause of a reply as soon as it exists, later ones as whole sentences', () => {
    const c = new SentenceChunker();
    expect(c.push('Sure, I can')).to.deep.equal([]);
    expect(c.push(' help with that, and')).to.deep.equal(['Sure, I can help with that,']);
    expect(c.push(' more, later. Next')).to.deep.equal(['and more, later.']);
  });

  it('the input buffer decodes PCM16 across odd-byte appends and keeps absolute time', () => {
    const buf = new InputAudioBuffer({ type: 'audio/pcm', rate: 16000 }, 1000);
    const bytes = new Uint8Array(Int16Array.from([1, -2, 300, -400]).buffer);
    expect(Array.from(buf.append(bytes.subarray(0, 3)))).to.deep.equal([1]);
    expect(Array.from(buf.append(bytes.subarray(3)))).to.deep.equal([-2, 300, -400]);
    expect(buf.durationMs).to.equal(0.25);
    const all = buf.takeAll();
    expect(Array.from(all.pcm!)).to.deep.equal([1, -2, 300, -400]);
    expect(buf.durationMs).to.equal(0);
    expect(buf.endMs).to.equal(0.25);
  });

  it('the input buffer drops the oldest audio beyond its cap', () => {
    const buf = new InputAudioBuffer({ type: 'audio/pcm', rate: 8000 }, 100);
    buf.append(new Uint8Array(8000 * 2 * 0.3));
    expect(buf.durationMs).to.equal(100);
    expect(buf.endMs).to.equal(300);
  });
});
