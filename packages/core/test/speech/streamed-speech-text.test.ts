import { expect } from 'chai';
import { lastingTags } from '../../src/speech/inline-tags.js';
import { StreamedSpeechText } from '../../src/speech/streamed-speech-text.js';

describe('StreamedSpeechText (a streamed reply cut into pieces spoken one at a time)', () => {
  it('gives each sentence once the next has begun, the rest on flush', () => {
    const s = new StreamedSpeechText();
    const out: string[] = [];
    for (const delta of ['The kitchen', ' light is on.', ' The door', ' is locked.', ' Bye']) out.push(...s.push(delta));
    expect(out).to.deep.equal(['The kitchen light is on.', 'The door is locked.']);
    expect(s.flush()).to.equal('Bye');
    expect(s.length).to.equal('The kitchen light is on. The door is locked. Bye'.length);
  });

  it('carries emotion, style and prosody tags into later pieces, never pauses or sound effects', () => {
    const s = new StreamedSpeechText();
    const out = [
      ...s.push('<|emotion:sad|>I lost. <|sfx:pop|><|prosody:pause|>Oh well. <|prosody:slow|><|style:whisper|>Quiet now. '),
      ...s.push('End.'),
    ];
    out.push(s.flush()!);
    expect(out).to.deep.equal([
      '<|emotion:sad|>I lost.',
      '<|emotion:sad|> <|sfx:pop|><|prosody:pause|>Oh well.',
      '<|emotion:sad|> <|prosody:slow|><|style:whisper|>Quiet now.',
      '<|emotion:sad|><|prosody:slow|><|style:whisper|> End.',
    ]);
  });
});

describe('lastingTags', () => {
  it('keeps known emotion, style and prosody values in order (normal and reset too), drops the rest', () => {
    expect(
      lastingTags(
        'a <|emotion:happy|> b <|prosody:pause=300ms|> <|sfx:applause|> <|emotion:bogus|> <|prosody:fast|> <|prosody:normal|> <|prosody:reset|>',
      ),
    ).to.equal('<|emotion:happy|><|prosody:fast|><|prosody:normal|><|prosody:reset|>');
    expect(lastingTags('no tags here')).to.equal('');
  });
});
