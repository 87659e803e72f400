import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientSecretRecord, ClientSecretRepository } from '@svc/core';
import { ENTITIES, MIGRATIONS, openDatabase } from '../../src/data-source.js';
import {
  ClientSecretEntity,
  CreateRealtimeClientSecretsTable1763800000000,
  InMemoryClientSecretRepository,
  TypeOrmClientSecretRepository,
} from '../../src/realtime/index.js';

const record = (n: number, expiresAt: number): ClientSecretRecord => ({
  id: `sess_${n}`,
  secretHash: `${n}`.padStart(64, 'a'),
  apiKeyId: 'key_1',
  apiKeyName: 'first key',
  createdAt: 1_700_000_000_000,
  expiresAt,
});

function contract(name: string, open: () => Promise<{ repo: ClientSecretRepository; close(): Promise<void> }>) {
  describe(`${name} client secret repository`, () => {
    let repo: ClientSecretRepository;
    let close: () => Promise<void>;
    beforeEach(async () => ({ repo, close } = await open()));
    afterEach(() => close());

    it('stores and finds a record by digest, with millisecond timestamps as numbers', async () => {
      await repo.insert(record(1, 1_700_000_600_000));
      expect(await repo.findBySecretHash(record(1, 0).secretHash)).to.deep.equal(record(1, 1_700_000_600_000));
      expect(await repo.findBySecretHash('f'.repeat(64))).to.equal(null);
    });

    it('refuses a duplicate digest', async () => {
      await repo.insert(record(1, 1));
      const err = await repo.insert({ ...record(1, 1), id: 'sess_other' }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
    });

    it('deletes expired records only', async () => {
      await repo.insert(record(1, 1000));
      await repo.insert(record(2, 2000));
      await repo.insert(record(3, 3000));
      expect(await repo.deleteExpired(2000)).to.equal(2);
      expect(await repo.findBySecretHash(record(3, 0).secretHash)).to.not.equal(null);
      expect(await repo.findBySecretHash(record(2, 0).secretHash)).to.equal(null);
    });
  });
}

contract('TypeORM (sqlite file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rt-db-'));
  const dataSource = await openDatabase({
    url: 'sqlite:test.sqlite',
    dataDir: dir,
    entities: [...ENTITIES.filter((e) => e !== ClientSecretEntity), ClientSecretEntity],
    migrations: [
      ...MIGRATIONS.filter((m) => m !== CreateRealtimeClientSecretsTable1763800000000),
      CreateRealtimeClientSecretsTable1763800000000,
    ],
  });
  return {
    repo: new TypeOrmClientSecretRepository(dataSource),
    async close() {
      await dataSource.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

if (process.env.SVC_TEST_POSTGRES_URL) {
  contract('TypeORM (postgres)', async () => {
    const dataSource = await openDatabase({
      url: process.env.SVC_TEST_POSTGRES_URL,
      dataDir: tmpdir(),
      entities: [...ENTITIES.filter((e) => e !== ClientSecretEntity), ClientSecretEntity],
      migrations: [
        ...MIGRATIONS.filter((m) => m !== CreateRealtimeClientSecretsTable1763800000000),
        CreateRealtimeClientSecretsTable1763800000000,
      ],
    });
    return {
      repo: new TypeOrmClientSecretRepository(dataSource),
      async close() {
        await dataSource.dropDatabase();
        await dataSource.destroy();
      },
    };
  });
}

contract('in-memory', async () => ({ repo: new InMemoryClientSecretRepository(), close: async () => undefined }));
