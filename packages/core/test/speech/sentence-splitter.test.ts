import { expect } from 'chai';
import { splitSentences } from '../../src/speech/sentence-splitter.js';

/** Words in order, ignoring how they were cut into chunks. */
function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

describe('splitSentences', () => {
  it('splits on . ! and ?', () => {
    expect(splitSentences('Hello there. How are you? I am fine!')).to.deep.equal(['Hello there.', 'How are you?', 'I am fine!']);
  });

  it('splits on an ellipsis character and on "..."', () => {
    expect(splitSentences('Wait… Now go. Stop... Go on.')).to.deep.equal(['Wait…', 'Now go.', 'Stop...', 'Go on.']);
  });

  it('keeps runs of terminators together', () => {
    expect(splitSentences('Really?! Yes.')).to.deep.equal(['Really?!', 'Yes.']);
  });

  it('splits on CJK full stops, exclamation and question marks without spaces', () => {
    expect(splitSentences('你好。我很好！你呢？好')).to.deep.equal(['你好。', '我很好！', '你呢？', '好']);
    expect(splitSentences('今日は晴れです。明日は雨です。')).to.deep.equal(['今日は晴れです。', '明日は雨です。']);
  });

  it('splits on newlines and drops blank lines', () => {
    expect(splitSentences('First line\nSecond line\r\n\n   \nThird')).to.deep.equal(['First line', 'Second line', 'Third']);
  });

  it('does not break after abbreviations', () => {
    expect(splitSentences('Mr. Smith met Dr. Jones. They talked.')).to.deep.equal(['Mr. Smith met Dr. Jones.', 'They talked.']);
    expect(splitSentences('Fruit, e.g. Apples and pears. Done.')).to.deep.equal(['Fruit, e.g. Apples and pears.', 'Done.']);
    expect(splitSentences('The U.S. Army is big. Yes.')).to.deep.equal(['The U.S. Army is big.', 'Yes.']);
    expect(splitSentences('See Fig. 3 for details.')).to.deep.equal(['See Fig. 3 for details.']);
  });

  it('does not break after initials', () => {
    expect(splitSentences('J. K. Rowling wrote it. Then more.')).to.deep.equal(['J. K. Rowling wrote it.', 'Then more.']);
  });

  it('does not break inside decimals or dotted words', () => {
    expect(splitSentences('Pi is 3.14 roughly. Visit example.com today.')).to.deep.equal([
      'Pi is 3.14 roughly.',
      'Visit example.com today.',
    ]);
  });

  it('does not break before a lower-case word', () => {
    expect(splitSentences('I was... thinking. Okay.')).to.deep.equal(['I was... thinking.', 'Okay.']);
  });

  it('does not break at an ellipsis inside quotes', () => {
    expect(splitSentences('She said "Wait... What is that?" and left. Bye.')).to.deep.equal([
      'She said "Wait... What is that?" and left.',
      'Bye.',
    ]);
    expect(splitSentences('He said “Well… I know.” Then he left.')).to.deep.equal(['He said “Well… I know.”', 'Then he left.']);
  });

  it('keeps closing quotes and brackets with their sentence', () => {
    expect(splitSentences('"Go home." She went. (Really.) Yes.')).to.deep.equal(['"Go home."', 'She went.', '(Really.)', 'Yes.']);
  });

  it('returns nothing for empty or blank text', () => {
    expect(splitSentences('')).to.deep.equal([]);
    expect(splitSentences('  \n\t ')).to.deep.equal([]);
  });

  it('returns a text without terminators as one chunk', () => {
    expect(splitSentences('  just some words  ')).to.deep.equal(['just some words']);
  });

  it('splits a long sentence at commas first', () => {
    const clause = 'this clause has about forty characters';
    const sentence = `${clause}, ${clause}, ${clause}, ${clause}.`;
    const chunks = splitSentences(sentence, 90);
    expect(chunks).to.deep.equal([`${clause}, ${clause},`, `${clause}, ${clause}.`]);
  });

  it('splits at semicolons and colons too', () => {
    const chunks = splitSentences('alpha beta gamma delta; epsilon zeta eta theta: iota kappa lambda mu', 30);
    expect(chunks).to.deep.equal(['alpha beta gamma delta;', 'epsilon zeta eta theta:', 'iota kappa lambda mu']);
  });

  it('falls back to spaces when a clause is too long', () => {
    const chunks = splitSentences('one two three four five six seven eight nine ten', 15);
    expect(chunks).to.deep.equal(['one two three', 'four five six', 'seven eight', 'nine ten']);
  });

  it('cuts a single word longer than maxChars', () => {
    const chunks = splitSentences('x'.repeat(250), 100);
    expect(chunks.map((c) => c.length)).to.deep.equal([100, 100, 50]);
  });

  it('never cuts inside a surrogate pair', () => {
    const text = '😀'.repeat(10);
    const chunks = splitSentences(text, 5);
    expect(chunks.join('')).to.equal(text);
    for (const c of chunks) expect(c.length).to.be.at.most(5);
    for (const c of chunks) expect(c).not.to.match(/[\ud800-\udbff]$/);
  });

  it('keeps a long CJK sentence under maxChars by cutting at CJK commas', () => {
    const text = `${'我们今天去公园'.repeat(3)}，${'然后回家吃饭'.repeat(3)}，${'晚上看电影'.repeat(3)}。`;
    const chunks = splitSentences(text, 25);
    for (const c of chunks) expect(c.length).to.be.at.most(25);
    expect(chunks.join('')).to.equal(text);
  });

  it('splits a 5000-character text into chunks of at most maxChars without losing words', () => {
    const vocabulary = ['speech', 'synthesis', 'is', 'fun', 'Dr.', 'Smith', 'said', '3.14', 'really', 'extraordinarily'];
    const parts: string[] = [];
    let text = '';
    for (let i = 0; text.length < 5000; i++) {
      let word = vocabulary[(i * 7) % vocabulary.length]!;
      if (i % 13 === 12) word += ',';
      if (i % 97 === 96) word += '.';
      parts.push(word);
      text = parts.join(' ');
    }
    text = text.slice(0, 5000);
    for (const maxChars of [300, 120, 40]) {
      const chunks = splitSentences(text, maxChars);
      for (const c of chunks) {
        expect(c.length).to.be.at.most(maxChars);
        expect(c).to.equal(c.trim());
        expect(c).not.to.equal('');
      }
      expect(words(chunks.join(' '))).to.deep.equal(words(text));
    }
  });

  it('uses 300 characters as the default maximum', () => {
    const text = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const chunks = splitSentences(text);
    expect(chunks.length).to.be.greaterThan(1);
    for (const c of chunks) expect(c.length).to.be.at.most(300);
    expect(chunks[0]!.length).to.be.greaterThan(250);
  });

  it('leaves short sentences alone regardless of maxChars', () => {
    expect(splitSentences('Short. Also short.', 12)).to.deep.equal(['Short.', 'Also short.']);
  });

  it('attaches a punctuation-only chunk to the previous one', () => {
    expect(splitSentences('Hello.\n...')).to.deep.equal(['Hello. ...']);
  });

  it('rejects a maxChars below 1', () => {
    expect(() => splitSentences('Hi', 0)).to.throw(RangeError);
    expect(() => splitSentences('Hi', Number.NaN)).to.throw(RangeError);
  });
});
