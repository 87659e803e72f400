import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { VoiceRecord } from '@svc/core';
import { ENTITIES, MIGRATIONS, openDatabase } from '../../src/data-source.js';
import { CreateVoicesTable1763700000300, TypeOrmVoiceRepository, VoiceEntity } from '../../src/voices/index.js';

// Until the data source registers them, add this capability's entity and migration explicitly.
const entities = ENTITIES.includes(VoiceEntity) ? ENTITIES : [...ENTITIES, VoiceEntity];
const migrations = MIGRATIONS.includes(CreateVoicesTable1763700000300) ? MIGRATIONS : [...MIGRATIONS, CreateVoicesTable1763700000300];

const targets: Array<{ name: string; open(): Promise<{ dataSource: DataSource; cleanup(): Promise<void> }> }> = [
  {
    name: 'sqlite file',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'svc-voices-db-'));
      const dataSource = await openDatabase({ url: 'sqlite:test.sqlite', dataDir: dir, entities, migrations });
      return { dataSource, cleanup: async () => (await dataSource.destroy(), rmSync(dir, { recursive: true, force: true })) };
    },
  },
];
if (process.env.SVC_TEST_POSTGRES_URL) {
  targets.push({
    name: 'postgres',
    async open() {
      const dataSource = await openDatabase({ url: process.env.SVC_TEST_POSTGRES_URL!, dataDir: tmpdir(), entities, migrations });
      return { dataSource, cleanup: async () => (await dataSource.dropDatabase(), await dataSource.destroy()) };
    },
  });
}

const voice = (apiKeyId: string, n: number, createdAt: number, audioKey = `voices/${apiKeyId}/${n}/ref_1`): VoiceRecord => ({
  id: `voice_${String(n).padStart(32, '0')}`,
  apiKeyId,
  refText: `text ${n}`,
  description: `description ${n} ✓`,
  createdAt,
  audioKey,
  audioFormat: 'wav',
  audioBytes: 123_456,
  durationSeconds: 7.25,
  profile: {
    version: 1,
    analyzer: 'dsp-1',
    speaker: {
      f0MedianHz: 101.5,
      f0LowHz: 90,
      f0HighHz: 120,
      formantsHz: [400, 1500, 2600],
      formantScale: 1.02,
      spectralEnvelopeDb: [1.5, -2],
      envelopeBandsHz: [200, 1000],
      mfccMean: [1, 2],
      mfccStd: [3, 4],
      syllableRateFromEnergy: 3.9,
      syllableRateFromText: null,
      voicedSeconds: 4,
    },
    base: { preset: 'rms', speaker: {} as never },
  },
});

for (const target of targets) {
  describe(`TypeOrmVoiceRepository on ${target.name}`, function () {
    this.timeout(30_000);
    let cleanup: () => Promise<void>;
    let repo: TypeOrmVoiceRepository;
    beforeEach(async () => {
      const opened = await target.open();
      cleanup = opened.cleanup;
      repo = new TypeOrmVoiceRepository(opened.dataSource);
    });
    afterEach(async () => cleanup());

    it('stores and finds a voice with its profile, scoped by key', async () => {
      const v = voice('key_a', 1, 1_800_000_000_123);
      expect(await repo.insertIfAbsent(v)).to.deep.equal({ record: v, created: true });
      expect(await repo.find('key_a', v.id)).to.deep.equal(v);
      expect(await repo.find('key_b', v.id)).to.equal(null);
    });

    it('a second insert of the same (key, id) keeps the first row and says so', async () => {
      const first = voice('key_a', 1, 1000, 'voices/key_a/1/first');
      await repo.insertIfAbsent(first);
      const second = await repo.insertIfAbsent({ ...first, createdAt: 2000, audioKey: 'voices/key_a/1/second', description: 'other' });
      expect(second.created).to.equal(false);
      expect(second.record).to.deep.equal(first);
      // The same id under another key is another row.
      expect((await repo.insertIfAbsent(voice('key_b', 1, 3000))).created).to.equal(true);
    });

    it('concurrent inserts of the same voice store exactly one row', async () => {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => repo.insertIfAbsent(voice('key_a', 1, 1000 + i, `voices/key_a/1/r${i}`))),
      );
      expect(results.filter((r) => r.created)).to.have.length(1);
      expect(new Set(results.map((r) => r.record.audioKey)).size).to.equal(1);
      expect((await repo.list('key_a', { limit: 10 })).voices).to.have.length(1);
    });

    it('lists newest first (id breaks ties), in pages, without other keys’ voices', async () => {
      for (const [n, t] of [
        [1, 100],
        [2, 300],
        [3, 200],
        [4, 300],
        [5, 50],
      ] as const)
        await repo.insertIfAbsent(voice('key_a', n, t));
      await repo.insertIfAbsent(voice('key_b', 9, 999));
      const ids = (p: { voices: { id: string }[] }) => p.voices.map((v) => Number(v.id.slice(6)));
      const first = await repo.list('key_a', { limit: 2 });
      expect(ids(first)).to.deep.equal([4, 2]);
      expect(first.hasMore).to.equal(true);
      expect(first.voices[0]).to.not.have.property('profile');
      const second = await repo.list('key_a', { limit: 2, after: { createdAt: 300, id: first.voices[1]!.id } });
      expect(ids(second)).to.deep.equal([3, 1]);
      const last = await repo.list('key_a', { limit: 2, after: { createdAt: 100, id: second.voices[1]!.id } });
      expect(ids(last)).to.deep.equal([5]);
      expect(last.hasMore).to.equal(false);
    });

    it('counts the voices of one key (the cap of SVC_VOICES_MAX_PER_KEY): other keys’ are not counted; a delete counts one fewer', async () => {
      expect(await repo.count('key_a')).to.equal(0);
      for (const n of [1, 2, 3]) await repo.insertIfAbsent(voice('key_a', n, 1000 + n));
      await repo.insertIfAbsent(voice('key_b', 1, 1000));
      expect([await repo.count('key_a'), await repo.count('key_b'), await repo.count('key_c')]).to.deep.equal([3, 1, 0]);
      await repo.delete('key_a', voice('key_a', 2, 0).id);
      expect(await repo.count('key_a')).to.equal(2);
    });

    it('delete removes only the caller’s row and returns it once', async () => {
      const v = voice('key_a', 1, 1000);
      await repo.insertIfAbsent(v);
      await repo.insertIfAbsent(voice('key_b', 1, 1000));
      expect(await repo.delete('key_b', 'voice_nope')).to.equal(null);
      expect(await repo.delete('key_a', v.id)).to.deep.equal(v);
      expect(await repo.delete('key_a', v.id)).to.equal(null);
      expect(await repo.find('key_a', v.id)).to.equal(null);
      expect(await repo.find('key_b', v.id)).to.not.equal(null);
    });
  });
}
