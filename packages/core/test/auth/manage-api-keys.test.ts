import { expect } from 'chai';
import { ManageApiKeys } from '../../src/auth/manage-api-keys.js';
import type { ApiKeyRecord, ApiKeyRepository, KeyHolding } from '../../src/auth/api-key.js';
import { InvalidApiKeyError } from '../../src/shared/errors.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FakeHasher, SequentialIds } from '../fakes/fake-ids.js';

class MapRepo implements ApiKeyRepository {
  rows: ApiKeyRecord[] = [];
  async insert(r: ApiKeyRecord) {
    this.rows.push({ ...r });
  }
  async findBySecretHash(h: string) {
    return this.rows.find((r) => r.secretHash === h) ?? null;
  }
  async findById(id: string) {
    return this.rows.find((r) => r.id === id) ?? null;
  }
  async list() {
    return [...this.rows];
  }
  async revoke(id: string, at: number) {
    const r = this.rows.find((x) => x.id === id && x.revokedAt === null);
    if (!r) return false;
    r.revokedAt = at;
    return true;
  }
  async count() {
    return this.rows.length;
  }
}

describe('ManageApiKeys', () => {
  const make = (configured: string[] = []) => {
    const repo = new MapRepo();
    return { repo, keys: new ManageApiKeys(repo, new SequentialIds(), new FakeHasher(), new FakeClock(), configured) };
  };

  it('stores only the digest of a new secret and authenticates with the secret', async () => {
    const { repo, keys } = make();
    const { record, secret } = await keys.create('ci');
    expect(secret.startsWith('svc-')).to.equal(true);
    expect(JSON.stringify(repo.rows)).not.to.contain(secret);
    expect(repo.rows[0]!.secretHash).to.equal(new FakeHasher().sha256(secret));
    const principal = await keys.authenticate(secret);
    expect(principal).to.deep.equal({ apiKeyId: record.id, name: 'ci' });
  });

  it('rejects missing, unknown and revoked keys', async () => {
    const { keys } = make();
    const { record, secret } = await keys.create('gone');
    await expectRejects(keys.authenticate(null));
    await expectRejects(keys.authenticate('svc-nope'));
    expect(await keys.revoke(record.id)).to.equal(true);
    expect(await keys.revoke(record.id)).to.equal(false);
    await expectRejects(keys.authenticate(secret));
  });

  it('accepts configured keys and counts them for isEmpty', async () => {
    const { keys } = make(['automation-key']);
    expect(await keys.isEmpty()).to.equal(false);
    const p = await keys.authenticate('automation-key');
    expect(p.apiKeyId.startsWith('key_cfg_')).to.equal(true);
    expect(await make().keys.isEmpty()).to.equal(true);
  });

  it('principalOf: an active key by its id (stored or configured), null once revoked or unknown', async () => {
    const { keys } = make(['configured-secret']);
    const { record } = await keys.create('home-assistant');
    expect(await keys.principalOf(record.id)).to.deep.equal({ apiKeyId: record.id, name: 'home-assistant' });
    const configured = await keys.authenticate('configured-secret');
    expect(await keys.principalOf(configured.apiKeyId)).to.deep.equal(configured);
    await keys.revoke(record.id);
    expect(await keys.principalOf(record.id)).to.equal(null);
    expect(await keys.isActive(record.id)).to.equal(false);
    expect(await keys.principalOf('key_nope')).to.equal(null);
  });

  it("revoke releases the key's holdings once it is revoked; running it again finishes a failed release; other keys keep theirs", async () => {
    const repo = new MapRepo();
    const released: Array<{ id: string; activeThen: boolean }> = [];
    let failing = false;
    const holding: KeyHolding = {
      async release(id) {
        if (failing) throw new Error('database down');
        released.push({ id, activeThen: await keys.isActive(id) });
      },
    };
    const keys = new ManageApiKeys(repo, new SequentialIds(), new FakeHasher(), new FakeClock(), ['configured-secret'], [holding]);
    const kept = await keys.create('kept');
    const gone = await keys.create('gone');

    failing = true;
    const failed = await keys.revoke(gone.record.id).catch((err: unknown) => err);
    expect(String(failed)).to.contain('database down');
    expect(await keys.isActive(gone.record.id), 'revoked although its release failed').to.equal(false);
    expect(released).to.deep.equal([]);

    failing = false;
    expect(await keys.revoke(gone.record.id), 'no active key by that id any more').to.equal(false);
    expect(released, 'released by the second run, after the key was revoked').to.deep.equal([{ id: gone.record.id, activeThen: false }]);

    const configured = await keys.authenticate('configured-secret');
    expect(await keys.revoke(configured.apiKeyId)).to.equal(false);
    expect(await keys.revoke('key_unknown')).to.equal(false);
    expect(
      released.map((r) => r.id),
      "neither a configured, an unknown nor another key's holdings",
    ).to.deep.equal([gone.record.id]);
    expect(await keys.isActive(kept.record.id)).to.equal(true);
  });
});

async function expectRejects(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidApiKeyError);
    return;
  }
  throw new Error('expected InvalidApiKeyError');
}
