import { expect } from 'chai';
import { espeakWordTimings } from '../src/espeak/espeak-word-timings.js';
import { escapeForSsml } from '../src/espeak/ssml-escape.js';
import type { EspeakTimingEvent } from '../src/espeak/espeak-job.js';

const word = (textPosition: number, audioMs: number): EspeakTimingEvent => ({ type: 'word', textPosition, audioMs });
const pause = (audioMs: number): EspeakTimingEvent => ({ type: 'pause', textPosition: 0, audioMs });
const phonemes = (textPosition: number, ...times: number[]): EspeakTimingEvent[] =>
  times.map((audioMs) => ({ type: 'phoneme', textPosition, audioMs }));

describe('espeak word timings and SSML escaping', () => {
  it('escapes <, > and & and maps escaped positions back to the original', () => {
    const e = escapeForSsml('a<b & é');
    expect(e.text).to.equal('a&lt;b &amp; é');
    expect(e.origin[e.text.indexOf('b')]).to.equal(2);
    expect(e.origin[[...e.text].length - 1]).to.equal(6);
  });

  it('ends a word at the next word or pause, and merges events inside one written token', () => {
    const text = 'Call 1234 now, please.';
    const e = escapeForSsml(text);
    // espeak reads "1234" as several words: events at 6, 7, 7, 7 (1-based).
    const events = [
      word(1, 0),
      word(6, 300),
      word(7, 500),
      word(7, 700),
      word(7, 900),
      word(11, 1200),
      pause(1400),
      word(16, 1600),
      pause(2000),
    ];
    expect(espeakWordTimings(text, e.origin, events, 2.2)).to.deep.equal([
      { word: 'Call', start: 0, end: 0.3 },
      { word: '1234', start: 0.3, end: 1.2 },
      { word: 'now', start: 1.2, end: 1.4 },
      { word: 'please', start: 1.6, end: 2 },
    ]);
  });

  it('gives every written word its timing where espeak joined words: the joined word split by letters at phoneme starts', () => {
    const text = 'Bonjour tout le monde.';
    // espeak-ng fr: two word events; "tout le monde" is one word of 6 phonemes (t u l m ɔ̃ d)
    const events = [
      word(1, 0),
      ...phonemes(1, 12, 27, 108, 163, 265),
      word(9, 307),
      ...phonemes(9, 346, 368, 469, 501, 597, 725),
      pause(805),
      { type: 'end' as const, textPosition: 22, audioMs: 812 },
    ];
    expect(espeakWordTimings(text, escapeForSsml(text).origin, events, 0.9)).to.deep.equal([
      { word: 'Bonjour', start: 0, end: 0.307 },
      { word: 'tout', start: 0.307, end: 0.469 },
      { word: 'le', start: 0.469, end: 0.501 },
      { word: 'monde', start: 0.501, end: 0.805 },
    ]);
  });

  it('splits scripts without spaces at each event', () => {
    const text = '你好世界。';
    const e = escapeForSsml(text);
    const events = [word(1, 0), word(3, 400), word(4, 650), pause(900)];
    expect(espeakWordTimings(text, e.origin, events, 1).map((w) => w.word)).to.deep.equal(['你好', '世', '界']);
  });
});
