import { expect } from 'chai';
import type { DetailedTranscript } from '@svc/core';
import { presentTranscript } from '../../src/transcription/transcription-presenter.js';

const transcript = {
  text: 'Hello there. General Kenobi.',
  language: 'en',
  duration: 3723.45678,
  segments: [
    { start: 0, end: 1.2344, text: 'Hello there.' },
    { start: 3599.9996, end: 3723.4567, text: 'General Kenobi.' },
  ],
  words: [{ word: 'Hello', start: 0.1234, end: 0.5 }],
} as unknown as DetailedTranscript;

describe('transcription presenter: each response_format', () => {
  it('json is {text, usage} (duration billed in whole seconds, rounded up); text is the text and a newline', () => {
    expect(presentTranscript(transcript, 'json', false, true)).to.deep.equal({
      body: { text: transcript.text, usage: { type: 'duration', seconds: 3724 } },
      type: 'application/json',
    });
    expect(presentTranscript(transcript, 'text', false, true)).to.deep.equal({
      body: 'Hello there. General Kenobi.\n',
      type: 'text/plain; charset=utf-8',
    });
  });

  it('srt and vtt: numbered (srt) cues, hh:mm:ss,mmm (srt) or hh:mm:ss.mmm (vtt), past the hour', () => {
    const srt = presentTranscript(transcript, 'srt', false, true);
    expect(srt.type).to.equal('application/x-subrip; charset=utf-8');
    expect(srt.body).to.equal('1\n00:00:00,000 --> 00:00:01,234\nHello there.\n\n2\n01:00:00,000 --> 01:02:03,457\nGeneral Kenobi.\n');
    const vtt = presentTranscript(transcript, 'vtt', false, true);
    expect(vtt.type).to.equal('text/vtt; charset=utf-8');
    expect(vtt.body).to.equal('WEBVTT\n\n00:00:00.000 --> 00:00:01.234\nHello there.\n\n01:00:00.000 --> 01:02:03.457\nGeneral Kenobi.\n');
  });

  it('verbose_json: the language by name, times to the millisecond, segments unless only words are asked for, words only when timed', () => {
    const both = presentTranscript(transcript, 'verbose_json', true, true).body as Record<string, unknown>;
    expect(both).to.deep.include({ task: 'transcribe', language: 'english', duration: 3723.457, text: transcript.text });
    // Every OpenAI segment field is present; an engine without windows gives its start (10 ms frames) as
    // seek, and figures it did not measure show values Whisper-style filters never drop.
    const segments = both.segments as Array<Record<string, unknown>>;
    expect(segments.map((s) => [s.id, s.seek, s.start, s.end, s.text])).to.deep.equal([
      [0, 0, 0, 1.234, 'Hello there.'],
      [1, 360000, 3600, 3723.457, 'General Kenobi.'],
    ]);
    for (const s of segments)
      expect(s).to.have.all.keys(
        'id',
        'seek',
        'start',
        'end',
        'text',
        'tokens',
        'temperature',
        'avg_logprob',
        'compression_ratio',
        'no_speech_prob',
      );
    expect(both.usage).to.deep.equal({ type: 'duration', seconds: 3724 });
    expect(both.words).to.deep.equal([{ word: 'Hello', start: 0.123, end: 0.5 }]);
    const wordsOnly = presentTranscript(transcript, 'verbose_json', true, false).body as Record<string, unknown>;
    expect(wordsOnly).not.to.have.property('segments');
    const untimed = presentTranscript({ ...transcript, words: undefined } as DetailedTranscript, 'verbose_json', true, true).body as Record<
      string,
      unknown
    >;
    expect(untimed).not.to.have.property('words');
    expect(
      (
        presentTranscript({ ...transcript, language: null } as unknown as DetailedTranscript, 'verbose_json', false, true).body as Record<
          string,
          unknown
        >
      ).language,
    ).to.equal(null);
  });
});
