import { expect } from 'chai';
import { parseInlineTags, SUPPORTED_TAG_VALUES, type SpeechSegment } from '../../src/speech/inline-tags.js';
import { NEUTRAL_PROSODY, type Prosody } from '../../src/speech/prosody.js';
import { SOUND_EFFECTS } from '../../src/speech/sound-effects.js';

type TextSegment = Extract<SpeechSegment, { kind: 'text' }>;

function texts(segments: SpeechSegment[]): TextSegment[] {
  return segments.filter((s): s is TextSegment => s.kind === 'text');
}

/** A compact picture of the segments: text, "[pause N]" or "[sfx NAME]". */
function shape(segments: SpeechSegment[]): string[] {
  return segments.map((s) => (s.kind === 'text' ? s.text : s.kind === 'pause' ? `[pause ${s.ms}]` : `[sfx ${s.name}]`));
}

function isNeutral(p: Prosody): boolean {
  return p.rate === 1 && p.pitch === 1 && p.pitchRange === 1 && p.volume === 1;
}

function prosodyAfter(tag: string): Prosody {
  const segments = texts(parseInlineTags(`${tag}Hello`));
  expect(segments).to.have.length(1);
  return segments[0]!.prosody;
}

describe('parseInlineTags', () => {
  describe('plain text', () => {
    it('returns one neutral text segment for text without tags', () => {
      const segments = parseInlineTags('Hello world.');
      expect(segments).to.deep.equal([{ kind: 'text', text: 'Hello world.', prosody: { ...NEUTRAL_PROSODY } }]);
    });

    it('returns nothing for empty or whitespace-only input', () => {
      expect(parseInlineTags('')).to.deep.equal([]);
      expect(parseInlineTags('   \n ')).to.deep.equal([]);
    });

    it('uses the base prosody for untagged text', () => {
      const base = { rate: 1.5, pitch: 1, pitchRange: 1, volume: 1 };
      expect(texts(parseInlineTags('Hi', base))[0]!.prosody).to.deep.equal(base);
    });

    it('keeps newlines inside text (the sentence splitter breaks on them)', () => {
      expect(shape(parseInlineTags('one\ntwo'))).to.deep.equal(['one\ntwo']);
    });

    it('does not mutate the base prosody it is given', () => {
      const base = { rate: 2, pitch: 1, pitchRange: 1, volume: 1 };
      parseInlineTags('<|emotion:sad|>Hi <|prosody:loud|>there', base);
      expect(base).to.deep.equal({ rate: 2, pitch: 1, pitchRange: 1, volume: 1 });
    });
  });

  describe('tags are never spoken', () => {
    const inputs = [
      '<|emotion:enthusiasm|>Hello',
      'Hello<|emotion:enthusiasm|>',
      'Hel<|style:news|>lo',
      '<|unknown:thing|>Hello',
      '<|emotion|>Hello',
      '<||>Hello',
      '<|prosody:nonsense|>Hello',
      '<|sfx:no-such-sound|>Hello',
      '<|emotion:happy Hello',
      '<| emotion : happy |>Hello',
    ];
    for (const input of inputs) {
      it(`leaves only "Hello" from ${JSON.stringify(input)}`, () => {
        const spoken = texts(parseInlineTags(input))
          .map((s) => s.text)
          .join(' ');
        expect(spoken).to.equal('Hello');
        expect(spoken).not.to.include('<|');
        expect(spoken).not.to.include('|>');
      });
    }
  });

  describe('emotion and style', () => {
    it('applies the spec example <|emotion:enthusiasm|> to the text that follows', () => {
      const segments = parseInlineTags('<|emotion:enthusiasm|>Great news!');
      expect(shape(segments)).to.deep.equal(['Great news!']);
      const p = texts(segments)[0]!.prosody;
      expect(p.pitchRange).to.be.greaterThan(1);
      expect(p.rate).to.be.greaterThan(1);
    });

    it('keeps text before the tag neutral', () => {
      const segments = texts(parseInlineTags('Calm first. <|emotion:excited|>Then excited!'));
      expect(segments.map((s) => s.text)).to.deep.equal(['Calm first.', 'Then excited!']);
      expect(isNeutral(segments[0]!.prosody)).to.equal(true);
      expect(isNeutral(segments[1]!.prosody)).to.equal(false);
    });

    it('lasts until the next emotion tag', () => {
      const segments = texts(parseInlineTags('<|emotion:sad|>One. Two. <|emotion:happy|>Three.'));
      expect(segments.map((s) => s.text)).to.deep.equal(['One. Two.', 'Three.']);
      expect(segments[0]!.prosody.pitch).to.be.lessThan(1);
      expect(segments[1]!.prosody.pitch).to.be.greaterThan(1);
    });

    it('returns to neutral with emotion:neutral', () => {
      const segments = texts(parseInlineTags('<|emotion:angry|>Stop! <|emotion:neutral|>Fine.'));
      expect(isNeutral(segments[1]!.prosody)).to.equal(true);
    });

    it('combines emotion with style', () => {
      const sad = prosodyAfter('<|emotion:sad|>');
      const whisper = prosodyAfter('<|style:whisper|>');
      const both = prosodyAfter('<|style:whisper|><|emotion:sad|>');
      expect(both.volume).to.be.closeTo(sad.volume * whisper.volume, 1e-9);
      expect(both.rate).to.be.closeTo(sad.rate * whisper.rate, 1e-9);
    });

    it('changing the emotion keeps the style', () => {
      const segments = texts(parseInlineTags('<|style:whisper|><|emotion:sad|>a <|emotion:neutral|>b'));
      expect(segments[1]!.prosody).to.deep.equal(prosodyAfter('<|style:whisper|>'));
    });

    it('scales the base prosody (speed) instead of replacing it', () => {
      const base = { rate: 2, pitch: 1, pitchRange: 1, volume: 1 };
      const p = texts(parseInlineTags('<|emotion:sad|>Hi', base))[0]!.prosody;
      expect(p.rate).to.be.closeTo(2 * prosodyAfter('<|emotion:sad|>').rate, 1e-9);
    });

    it('reads kinds and values case-insensitively and with spaces', () => {
      expect(prosodyAfter('<|EMOTION: Happy |>')).to.deep.equal(prosodyAfter('<|emotion:happy|>'));
    });

    const emotions = [
      'enthusiasm',
      'excited',
      'happy',
      'joy',
      'sad',
      'angry',
      'calm',
      'fear',
      'scared',
      'surprise',
      'whisper',
      'whispering',
    ];
    for (const emotion of emotions) {
      it(`emotion:${emotion} differs from neutral and is documented`, () => {
        expect(isNeutral(prosodyAfter(`<|emotion:${emotion}|>`))).to.equal(false);
        expect(SUPPORTED_TAG_VALUES.emotion).to.have.property(emotion);
      });
    }

    it('emotion:whisper is soft and slow', () => {
      const p = prosodyAfter('<|emotion:whisper|>');
      expect(p.volume).to.be.lessThan(0.7);
      expect(p.rate).to.be.lessThan(1);
    });

    it('fear and scared sound the same', () => {
      expect(prosodyAfter('<|emotion:fear|>')).to.deep.equal(prosodyAfter('<|emotion:scared|>'));
    });

    const styles = ['narration', 'news', 'conversational', 'whisper', 'shouting', 'cheerful', 'serious'];
    for (const style of styles) {
      it(`style:${style} differs from neutral and is documented`, () => {
        expect(isNeutral(prosodyAfter(`<|style:${style}|>`))).to.equal(false);
        expect(SUPPORTED_TAG_VALUES.style).to.have.property(style);
      });
    }

    it('style:shouting is louder than style:whisper', () => {
      expect(prosodyAfter('<|style:shouting|>').volume).to.be.greaterThan(prosodyAfter('<|style:whisper|>').volume * 2);
    });

    it('style:neutral and emotion:neutral are documented and neutral', () => {
      expect(isNeutral(prosodyAfter('<|style:neutral|>'))).to.equal(true);
      expect(isNeutral(prosodyAfter('<|emotion:neutral|>'))).to.equal(true);
      expect(SUPPORTED_TAG_VALUES.style).to.have.property('neutral');
      expect(SUPPORTED_TAG_VALUES.emotion).to.have.property('neutral');
    });

    it('ignores an unknown emotion and keeps the current one', () => {
      const segments = texts(parseInlineTags('<|emotion:sad|>a <|emotion:bewildered|>b'));
      expect(segments).to.have.length(1);
      expect(segments[0]!.text).to.equal('a b');
      expect(segments[0]!.prosody.pitch).to.be.lessThan(1);
    });
  });

  describe('prosody values', () => {
    it('slow is slower and fast is faster', () => {
      expect(prosodyAfter('<|prosody:slow|>').rate).to.be.lessThan(1);
      expect(prosodyAfter('<|prosody:fast|>').rate).to.be.greaterThan(1);
    });

    it('loud is louder and soft is softer', () => {
      expect(prosodyAfter('<|prosody:loud|>').volume).to.be.greaterThan(1);
      expect(prosodyAfter('<|prosody:soft|>').volume).to.be.lessThan(1);
    });

    it('high raises and low lowers the pitch', () => {
      expect(prosodyAfter('<|prosody:high|>').pitch).to.be.greaterThan(1);
      expect(prosodyAfter('<|prosody:low|>').pitch).to.be.lessThan(1);
    });

    it('values for different dimensions add up; a value for the same dimension replaces', () => {
      const [a, b, c] = texts(parseInlineTags('<|prosody:slow|>a <|prosody:loud|>b <|prosody:fast|>c'));
      expect(a!.prosody).to.include({ rate: 0.8, volume: 1 });
      expect(b!.prosody).to.include({ rate: 0.8, volume: 1.5 });
      expect(c!.prosody).to.include({ rate: 1.25, volume: 1.5 });
    });

    it('normal undoes prosody values but keeps the emotion', () => {
      const segments = texts(parseInlineTags('<|emotion:sad|><|prosody:fast|>a <|prosody:normal|>b'));
      expect(segments[1]!.prosody).to.deep.equal(prosodyAfter('<|emotion:sad|>'));
    });

    it('reset returns to the base prosody', () => {
      const base = { rate: 1.2, pitch: 1, pitchRange: 1, volume: 1 };
      const segments = texts(parseInlineTags('<|style:news|><|emotion:sad|><|prosody:loud|>a <|prosody:reset|>b', base));
      expect(segments[1]!.prosody).to.deep.equal(base);
    });

    for (const value of ['slow', 'fast', 'loud', 'soft', 'high', 'low', 'normal', 'reset', 'pause', 'pause-short', 'pause-long']) {
      it(`documents prosody:${value}`, () => {
        expect(SUPPORTED_TAG_VALUES.prosody).to.have.property(value);
      });
    }
  });

  describe('pauses', () => {
    it('prosody:pause inserts a 500 ms pause between text segments', () => {
      expect(shape(parseInlineTags('Hello. <|prosody:pause|> Goodbye.'))).to.deep.equal(['Hello.', '[pause 500]', 'Goodbye.']);
    });

    it('accepts short, long and explicit durations', () => {
      const segments = parseInlineTags(
        '<|prosody:pause-short|>a<|prosody:pause-long|> b <|prosody:pause=300ms|> c <|prosody:pause:750|> d <|prosody:pause=1.5s|> e <|prosody:pause_short|>',
      );
      expect(shape(segments)).to.deep.equal([
        '[pause 250]',
        'a',
        '[pause 1000]',
        'b',
        '[pause 300]',
        'c',
        '[pause 750]',
        'd',
        '[pause 1500]',
        'e',
        '[pause 250]',
      ]);
    });

    it('caps very long pauses at 10 seconds', () => {
      expect(parseInlineTags('<|prosody:pause=600000ms|>')).to.deep.equal([{ kind: 'pause', ms: 10000 }]);
    });

    it('keeps consecutive pauses as separate segments', () => {
      expect(shape(parseInlineTags('a<|prosody:pause|><|prosody:pause|>'))).to.deep.equal(['a', '[pause 500]', '[pause 500]']);
    });

    it('keeps a pause at the very start and the very end', () => {
      expect(shape(parseInlineTags('<|prosody:pause|>Hi<|prosody:pause|>'))).to.deep.equal(['[pause 500]', 'Hi', '[pause 500]']);
    });

    it('does not change the prosody of the text around it', () => {
      const segments = texts(parseInlineTags('<|emotion:happy|>a <|prosody:pause|> b'));
      expect(segments[0]!.prosody).to.deep.equal(segments[1]!.prosody);
    });
  });

  describe('sound effects', () => {
    it('turns sfx tags into sfx segments in place', () => {
      expect(shape(parseInlineTags('Ta-da! <|sfx:chime|> Done.'))).to.deep.equal(['Ta-da!', '[sfx chime]', 'Done.']);
    });

    it('lowercases the effect name', () => {
      expect(parseInlineTags('<|sfx:DING|>')).to.deep.equal([{ kind: 'sfx', name: 'ding' }]);
    });

    it('drops effects that do not exist', () => {
      expect(parseInlineTags('<|sfx:explosion|>')).to.deep.equal([]);
    });

    it('documents every sound effect as an sfx value', () => {
      expect(Object.keys(SUPPORTED_TAG_VALUES.sfx)).to.have.members(Object.keys(SOUND_EFFECTS));
      for (const name of ['beep', 'chime', 'ding', 'click', 'whoosh', 'pop']) expect(SUPPORTED_TAG_VALUES.sfx).to.have.property(name);
    });
  });

  describe('position and spacing', () => {
    it('handles a tag at the start and one at the end', () => {
      expect(shape(parseInlineTags('<|emotion:happy|>Hi there<|sfx:pop|>'))).to.deep.equal(['Hi there', '[sfx pop]']);
    });

    it('handles only tags', () => {
      expect(parseInlineTags('<|emotion:happy|><|style:news|>')).to.deep.equal([]);
    });

    it('applies consecutive tags at the same position', () => {
      const segments = parseInlineTags('a <|emotion:sad|><|prosody:pause|><|style:news|>b');
      expect(shape(segments)).to.deep.equal(['a', '[pause 500]', 'b']);
      expect(texts(segments)[1]!.prosody).to.deep.equal(prosodyAfter('<|emotion:sad|><|style:news|>'));
    });

    it('keeps a word whole when a tag sits inside it, acting after the word', () => {
      const segments = parseInlineTags('It is fan<|sfx:pop|>tastic today');
      expect(shape(segments)).to.deep.equal(['It is fantastic', '[sfx pop]', 'today']);
    });

    it('applies an emotion inside a word from the next word on', () => {
      const segments = texts(parseInlineTags('un<|emotion:sad|>happy people'));
      expect(segments.map((s) => s.text)).to.deep.equal(['unhappy', 'people']);
      expect(isNeutral(segments[0]!.prosody)).to.equal(true);
      expect(segments[1]!.prosody.pitch).to.be.lessThan(1);
    });

    it('does not glue words together when a tag stands between them without spaces', () => {
      expect(shape(parseInlineTags('Hello.<|prosody:pause|>Next one.'))).to.deep.equal(['Hello.', '[pause 500]', 'Next one.']);
      expect(shape(parseInlineTags('one<|foo:bar|>Two'))).to.deep.equal(['one Two']);
    });

    it('merges neighbours with identical prosody and keeps one space between words', () => {
      expect(shape(parseInlineTags('Hello <|unknown:x|> world'))).to.deep.equal(['Hello world']);
      expect(shape(parseInlineTags('Hi<|emotion:sad|> <|emotion:neutral|>there'))).to.deep.equal(['Hi there']);
      expect(shape(parseInlineTags('<|emotion:happy|>a <|emotion:happy|>b'))).to.deep.equal(['a b']);
    });

    it('drops whitespace-only text between tags', () => {
      const segments = parseInlineTags('<|emotion:sad|>   <|emotion:happy|>  Hi');
      expect(segments).to.have.length(1);
      expect((segments[0] as TextSegment).prosody.pitch).to.be.greaterThan(1);
    });

    it('never produces adjacent text segments with the same prosody', () => {
      const segments = parseInlineTags('a <|emotion:sad|>b <|emotion:neutral|>c <|style:news|><|style:neutral|>d <|prosody:slow|>e');
      for (let i = 1; i < segments.length; i++) {
        const [prev, cur] = [segments[i - 1]!, segments[i]!];
        if (prev.kind === 'text' && cur.kind === 'text') expect(prev.prosody).not.to.deep.equal(cur.prosody);
      }
    });
  });

  describe('malformed tags', () => {
    it('drops a tag without a value', () => {
      expect(shape(parseInlineTags('a <|emotion|> b'))).to.deep.equal(['a b']);
    });

    it('reads an unclosed tag with a known kind up to its end of word', () => {
      const segments = texts(parseInlineTags('<|emotion:sad Goodbye'));
      expect(segments.map((s) => s.text)).to.deep.equal(['Goodbye']);
      expect(segments[0]!.prosody.pitch).to.be.lessThan(1);
    });

    it('keeps a lone "<|" that starts no tag as text', () => {
      expect(shape(parseInlineTags('a <| b'))).to.deep.equal(['a <| b']);
    });

    it('keeps a lone "|>" as text', () => {
      expect(shape(parseInlineTags('a |> b'))).to.deep.equal(['a |> b']);
    });

    it('does not swallow words between a broken opener and a later closer', () => {
      const spoken = texts(parseInlineTags('<|emotion:happy Hello big world|> end'))
        .map((s) => s.text)
        .join(' ');
      expect(spoken).to.include('Hello big world');
      expect(spoken).to.include('end');
    });

    it('ignores ordinary angle brackets and pipes', () => {
      expect(shape(parseInlineTags('if a < b | c > d'))).to.deep.equal(['if a < b | c > d']);
    });
  });
});
