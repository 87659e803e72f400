import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { TypeOrmApiKeyRepository } from '../src/auth/typeorm-api-key-repository.js';
import { openDatabase } from '../src/data-source.js';
import { databaseTargets } from './database-targets.js';

for (const target of databaseTargets()) {
  describe(`TypeOrmApiKeyRepository on ${target.name}`, function () {
    this.timeout(30_000);
    let dataSource: DataSource;
    let cleanup: () => Promise<void>;
    let repo: TypeOrmApiKeyRepository;
    beforeEach(async () => {
      ({ dataSource, cleanup } = await target.open());
      repo = new TypeOrmApiKeyRepository(dataSource);
    });
    afterEach(async () => cleanup());

    const record = (id: string, hash: string, createdAt: number) => ({
      id,
      name: `n-${id}`,
      secretHash: hash,
      prefix: 'svc-abc',
      createdAt,
      revokedAt: null,
    });

    it('inserts, finds by digest and id, lists in creation order, counts', async () => {
      await repo.insert(record('key_b', 'b'.repeat(64), 1_800_000_000_002));
      await repo.insert(record('key_a', 'a'.repeat(64), 1_800_000_000_001));
      expect(await repo.count()).to.equal(2);
      expect(await repo.findBySecretHash('a'.repeat(64))).to.deep.equal(record('key_a', 'a'.repeat(64), 1_800_000_000_001));
      expect(await repo.findById('key_b')).to.include({ name: 'n-key_b', createdAt: 1_800_000_000_002 });
      expect(await repo.findBySecretHash('c'.repeat(64))).to.equal(null);
      expect((await repo.list()).map((r) => r.id)).to.deep.equal(['key_a', 'key_b']);
    });

    it('refuses a second key with the same digest', async () => {
      await repo.insert(record('key_1', 'd'.repeat(64), 1));
      let failed = false;
      try {
        await repo.insert(record('key_2', 'd'.repeat(64), 2));
      } catch {
        failed = true;
      }
      expect(failed).to.equal(true);
    });

    it('revokes once', async () => {
      await repo.insert(record('key_r', 'e'.repeat(64), 1));
      expect(await repo.revoke('key_r', 1_900_000_000_000)).to.equal(true);
      expect(await repo.revoke('key_r', 1_900_000_000_001)).to.equal(false);
      expect(await repo.revoke('key_missing', 1)).to.equal(false);
      expect((await repo.findById('key_r'))!.revokedAt).to.equal(1_900_000_000_000);
    });
  });
}

describe('migrations', function () {
  this.timeout(30_000);
  it('run once on a new SQLite file and are a no-op when the file is reopened', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'svc-mig-'));
    try {
      const first = await openDatabase({ url: 'sqlite:m.sqlite', dataDir: dir });
      await new TypeOrmApiKeyRepository(first).insert({
        id: 'key_1',
        name: 'n',
        secretHash: 'f'.repeat(64),
        prefix: 'p',
        createdAt: 1,
        revokedAt: null,
      });
      const applied = await first.query('SELECT name FROM migrations');
      await first.destroy();
      const second = await openDatabase({ url: 'sqlite:m.sqlite', dataDir: dir });
      expect(await second.query('SELECT name FROM migrations')).to.deep.equal(applied);
      expect(await new TypeOrmApiKeyRepository(second).count()).to.equal(1);
      await second.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown database URL scheme', async () => {
    let message = '';
    try {
      await openDatabase({ url: 'mysql://x', dataDir: '/tmp' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.contain('SVC_DATABASE_URL');
  });
});
