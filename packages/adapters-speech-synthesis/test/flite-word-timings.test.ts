import { expect } from 'chai';
import { estimateFliteWordTimings, estimatePhoneCount, splitPhrases } from '../src/flite/flite-word-timings.js';
import { parseSegmentDurations } from '../src/flite/flite-job.js';
import { splitForFlite } from '../src/flite/flite-text-chunks.js';

describe('flite word timing estimates', () => {
  it('parses -psdur output, offsetting later utterance lines', () => {
    const segments = parseSegmentDurations('pau:0.100 hh:0.200 ay:0.400 pau:0.500 \npau:0.100 b:0.300 \n');
    expect(segments.map((s) => s.phone)).to.deep.equal(['pau', 'hh', 'ay', 'pau', 'pau', 'b']);
    expect(segments.at(-1)!.end).to.be.closeTo(0.8, 1e-9);
  });

  it('splits text into phrases at punctuation and strips it from words', () => {
    expect(splitPhrases('Hello world, this is "it". Done!')).to.deep.equal([['Hello', 'world'], ['this', 'is', 'it'], ['Done']]);
    expect(splitPhrases('A - B')).to.deep.equal([['A', 'B']]);
  });

  it('guesses phone counts from spelling', () => {
    expect(estimatePhoneCount('the')).to.equal(2);
    expect(estimatePhoneCount('cat')).to.equal(3);
    expect(estimatePhoneCount('make')).to.equal(3);
    expect(estimatePhoneCount('42')).to.equal(6);
  });

  it('aligns phrases on pauses and snaps word boundaries to phone boundaries', () => {
    // "hello world, hi": hh ax l ow | w er l d | pau | hh ay
    const stdout = 'pau:0.1 hh:0.2 ax:0.3 l:0.4 ow:0.5 w:0.6 er:0.7 l:0.8 d:0.9 pau:1.2 hh:1.3 ay:1.5 pau:1.7';
    const words = estimateFliteWordTimings('hello world, hi', parseSegmentDurations(stdout));
    expect(words).to.deep.equal([
      { word: 'hello', start: 0.1, end: 0.5 },
      { word: 'world', start: 0.5, end: 0.9 },
      { word: 'hi', start: 1.2, end: 1.5 },
    ]);
  });

  it('scales times (pitch by resampling plays flite output faster)', () => {
    const words = estimateFliteWordTimings('hi', parseSegmentDurations('pau:0.2 hh:0.4 ay:0.8 pau:1.0'), 0.5);
    expect(words).to.deep.equal([{ word: 'hi', start: 0.1, end: 0.4 }]);
  });

  it('cuts long text at sentence ends first, then clauses, then spaces', () => {
    const text = 'One two three. Four five, six seven eight nine ten eleven.';
    expect(splitForFlite(text, 20)).to.deep.equal(['One two three.', 'Four five,', 'six seven eight nine', 'ten eleven.']);
    expect(splitForFlite('short', 20)).to.deep.equal(['short']);
    expect(splitForFlite('x'.repeat(45), 20)).to.deep.equal(['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(5)]);
  });
});
