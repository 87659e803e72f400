import { expect } from 'chai';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseCallerJson } from '../../src/shared/json-text.js';

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('parseCallerJson: JSON from callers, nesting capped before parsing', () => {
  it('parses up to MAX_JSON_DEPTH levels and refuses one more with a SyntaxError naming the limit', () => {
    expect(MAX_JSON_DEPTH).to.equal(128);
    expect(() => parseCallerJson(arrays(128))).not.to.throw();
    expect(() => parseCallerJson(objects(128))).not.to.throw();
    expect(() => parseCallerJson(arrays(129))).to.throw(SyntaxError, 'nested more than 128 levels deep');
    expect(() => parseCallerJson(objects(129))).to.throw(SyntaxError, 'nested more than 128 levels deep');
  });

  it('counts depth, not brackets: many siblings at one level are fine', () => {
    expect(parseCallerJson(`[${Array(1000).fill('[]').join(',')}]`)).to.have.length(1000);
  });

  it('skips strings, escaped quotes and backslashes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ s: '['.repeat(500) }), 2)).to.equal(false);
    expect(nestsDeeperThan(JSON.stringify({ s: '"[[[[' }), 2)).to.equal(false);
    // The string ends after an even run of backslashes: the brackets after it nest.
    expect(nestsDeeperThan('["\\\\",[[[]]]]', 3)).to.equal(true);
    expect(nestsDeeperThan('["\\\\\\"",[[]]]', 3)).to.equal(false);
  });

  it('leaves malformed text to JSON.parse (its own SyntaxError)', () => {
    expect(() => parseCallerJson('{"a":')).to.throw(SyntaxError);
    expect(() => parseCallerJson('["unterminated')).to.throw(SyntaxError);
  });

  it('refuses an 11 MB body of brackets in milliseconds (JSON.parse took seconds)', () => {
    const started = performance.now();
    expect(() => parseCallerJson(arrays(5_500_000))).to.throw(SyntaxError);
    expect(performance.now() - started).to.be.below(200);
  });
});
