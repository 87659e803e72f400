import { expect } from 'chai';
import { deliveryFromInstructions } from '../../src/speech/delivery-instructions.js';
import { parseInlineTags, SUPPORTED_TAG_VALUES } from '../../src/speech/inline-tags.js';
import { DELIVERY_INSTRUCTIONS } from '../../src/speech/delivery-instructions.js';

const applied = (text: string) => deliveryFromInstructions(text).applied;

describe('speech instructions mapped onto inline tags', () => {
  it('maps the delivery words of the table (emotion, style, prosody) and ignores the rest', () => {
    expect(applied('Speak in a cheerful and positive tone.')).to.deep.equal(['emotion:enthusiasm']);
    expect(applied('Excited!')).to.deep.equal(['emotion:enthusiasm']);
    expect(applied('Use a calm, soothing voice')).to.deep.equal(['emotion:calm']);
    expect(applied('whisper it')).to.deep.equal(['style:whisper']);
    expect(applied('Talk like a news anchor, fast.')).to.deep.equal(['style:news', 'prosody:fast']);
    expect(applied('speak slowly')).to.deep.equal(['prosody:slow']);
    expect(applied('Very slowly, please')).to.deep.equal(['prosody:x-slow']);
    expect(applied('Voice: a pirate. Punctuation: short sentences.')).to.deep.equal([]);
    expect(deliveryFromInstructions('').prefix).to.equal('');
  });

  it('keeps one tag per slot (the word that comes first wins) and combines slots', () => {
    expect(applied('calm, then cheerful')).to.deep.equal(['emotion:calm']);
    expect(applied('slow and loud, deep voice, sad')).to.deep.equal(['emotion:sad', 'prosody:slow', 'prosody:loud', 'prosody:low']);
    expect(applied('fast... no, slowly')).to.deep.equal(['prosody:fast']);
  });

  it('matches whole words only (no "fast" in "breakfast", no "sad" in "crusade")', () => {
    expect(applied('Read the breakfast menu about the crusade')).to.deep.equal([]);
    expect(applied('SLOWLY')).to.deep.equal(['prosody:slow']);
  });

  it("the prefix is inline tags the parser applies, and the input's own tags take over", () => {
    const { prefix } = deliveryFromInstructions('slowly and calmly');
    expect(prefix).to.equal('<|emotion:calm|><|prosody:slow|>');
    const [first, second] = parseInlineTags(`${prefix}Hello there. <|prosody:fast|>Quick now.`);
    expect(first).to.deep.include({ kind: 'text', text: 'Hello there.' });
    expect(second).to.deep.include({ kind: 'text', text: 'Quick now.' });
    expect((first as { prosody: { rate: number } }).prosody.rate).to.be.closeTo(0.9 * 0.8, 1e-9);
    expect((second as { prosody: { rate: number } }).prosody.rate).to.be.closeTo(0.9 * 1.25, 1e-9);
  });

  it('every tag of the table is a supported tag value', () => {
    for (const row of DELIVERY_INSTRUCTIONS) {
      const [kind, value] = row.tag.split(':') as [keyof typeof SUPPORTED_TAG_VALUES, string];
      expect(SUPPORTED_TAG_VALUES[kind], row.tag).to.have.property(value);
    }
  });
});
