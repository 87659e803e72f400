import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eldCompactScores, parseNgramDatabase } from '../../src/language/eld-compact-scores.js';
import { HELD_OUT_SHORT_SENTENCES, SHORT_SENTENCES } from '@svc/adapters-testing';

const eldNgramFile = (size: string) => join(dirname(dirname(fileURLToPath(import.meta.resolve('eld/medium')))), 'ngrams', `${size}.js`);

describe("eld's n-gram database held compactly", function () {
  this.timeout(60_000);

  it("scores every sentence of the evaluation set exactly as eld's own import of the same database", async () => {
    // The extra-small database: the same file format as the medium one the server uses, at a fifth of the memory in this test process.
    const { eld } = await import('eld/extrasmall');
    const compact = await eldCompactScores('extrasmall');
    const sentences = [...Object.values(SHORT_SENTENCES), ...Object.values(HELD_OUT_SHORT_SENTENCES)].flat();
    sentences.push("L'addition, s'il vous plaît.", 'Ünïcödé “quotes” and dashes — too', 'x');
    for (const sentence of sentences) expect(compact(sentence), sentence).to.deep.equal(eld.detect(sentence).getScores());
  });

  it('reads the medium database whole: 60 languages, every n-gram with its scores', () => {
    const db = parseNgramDatabase(readFileSync(eldNgramFile('medium'), 'utf8'));
    expect(db.type).to.equal('M60');
    expect(Object.keys(db.languages)).to.have.length(60);
    expect(db.languages[11]).to.equal('en');
    expect(db.index.size).to.be.greaterThan(100_000);
    expect(db.starts.at(-1)).to.equal(db.scores.length).and.equal(db.languageIds.length);
    // An n-gram key with the file's one escape (\') is read without its backslash.
    expect([...db.index.keys()].some((k) => k.includes("'") && !k.includes('\\'))).to.equal(true);
  });

  it('refuses a file in another format instead of guessing', () => {
    expect(() => parseNgramDatabase('export const x = 1')).to.throw(/not in the format/);
    expect(() => parseNgramDatabase("{type:'M60',languages:{0:'am'},ngrams:{'ab':{0:x}}}")).to.throw(/unexpected text/);
  });
});
