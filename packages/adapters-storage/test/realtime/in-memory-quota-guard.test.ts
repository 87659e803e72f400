import { expect } from 'chai';
import { InMemoryQuotaGuard, parseQuotaBudgets } from '../../src/realtime/index.js';

describe('InMemoryQuotaGuard (SVC_REALTIME_QUOTA)', () => {
  it('is unlimited by default', async () => {
    const guard = new InMemoryQuotaGuard(parseQuotaBudgets(undefined));
    for (let i = 0; i < 1000; i++) expect((await guard.consume('key_a', 'realtime.response', 1)).allowed).to.equal(true);
  });

  it('applies a budget to every key, or per key with * for the rest', async () => {
    const all = new InMemoryQuotaGuard(parseQuotaBudgets('2'));
    expect((await all.consume('k', 'r', 1)).allowed).to.equal(true);
    expect((await all.consume('k', 'r', 1)).allowed).to.equal(true);
    const refused = await all.consume('k', 'r', 1);
    expect(refused).to.deep.equal({ allowed: false, message: "Quota exhausted: this API key's budget of 2 units is used up." });
    expect((await all.consume('other', 'r', 1)).allowed).to.equal(true);

    const mixed = new InMemoryQuotaGuard(parseQuotaBudgets('key_small=1, *=0'));
    expect((await mixed.consume('key_small', 'r', 1)).allowed).to.equal(true);
    expect((await mixed.consume('key_small', 'r', 1)).allowed).to.equal(false);
    expect((await mixed.consume('key_other', 'r', 1)).allowed).to.equal(false);
    expect(mixed.usage('key_small')).to.equal(1);
  });

  it('rejects malformed specifications', () => {
    for (const bad of ['x', 'k=-1', 'k=1.5', '=3']) expect(() => parseQuotaBudgets(bad), bad).to.throw(/SVC_REALTIME_QUOTA/);
  });
});
