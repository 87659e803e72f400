import { expect } from 'chai';
import type { VideoJob } from '@svc/core';
import { databaseTargets } from '../database-targets.js';
import { TypeOrmVideoJobRepository } from '../../src/video/index.js';

const job = (apiKeyId: string, n: number, createdAt: number, over: Partial<VideoJob> = {}): VideoJob => ({
  id: `video_${String(n).padStart(4, '0')}`,
  apiKeyId,
  model: 'svc-avatar',
  status: 'queued',
  progress: 0,
  size: '640x480',
  durationSeconds: 12.345,
  createdAt,
  completedAt: null,
  expiresAt: null,
  error: null,
  attempts: 0,
  ...over,
});

for (const target of databaseTargets()) {
  describe(`TypeOrmVideoJobRepository (${target.name})`, () => {
    let repo: TypeOrmVideoJobRepository;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      const opened = await target.open();
      cleanup = opened.cleanup;
      repo = new TypeOrmVideoJobRepository(opened.dataSource);
    });
    afterEach(() => cleanup());

    it('stores, finds under its own key only, and updates a job', async () => {
      const a = job('key_a', 1, 1_700_000_000_123, { expiresAt: 1_700_000_100_000 });
      await repo.insert(a);
      expect(await repo.find('key_a', a.id)).to.deep.equal(a);
      expect(await repo.find('key_b', a.id)).to.equal(null);
      expect(await repo.get(a.id)).to.deep.equal(a);
      const failed = { ...a, status: 'failed' as const, progress: 42, error: 'bad ✓', attempts: 2, completedAt: 1_700_000_000_999 };
      expect(await repo.update(failed)).to.equal(true);
      expect(await repo.get(a.id)).to.deep.equal(failed);
      expect(await repo.update({ ...failed, apiKeyId: 'key_b' })).to.equal(false, 'an update never crosses keys');
      expect(await repo.update(job('key_a', 99, 1))).to.equal(false, 'a deleted row is reported gone');
    });

    it('a running job never goes back, whoever writes: its progress and attempts only rise, and a finished job stays finished (issue 17, defect 2)', async () => {
      const a = job('key_a', 1, 1000, { status: 'in_progress', progress: 40, attempts: 1 });
      await repo.insert(a);
      // A worker whose lock expired under load still writes while another has taken the job over.
      expect(await repo.update({ ...a, progress: 3, attempts: 2 })).to.equal(true);
      expect(await repo.get(a.id)).to.include({ status: 'in_progress', progress: 40, attempts: 2 });
      expect(await repo.update({ ...a, progress: 41, attempts: 1 })).to.equal(true);
      expect(await repo.get(a.id)).to.include({ progress: 41, attempts: 2 });
      const done = { ...a, status: 'completed' as const, progress: 100, attempts: 2, completedAt: 2000 };
      expect(await repo.update(done)).to.equal(true);
      expect(await repo.update({ ...a, progress: 60 })).to.equal(false, 'a late progress write does not reopen a finished job');
      expect(await repo.get(a.id)).to.deep.equal(done);
    });

    it('lists newest first in pages, ties by id, scoped by key', async () => {
      for (let n = 1; n <= 5; n++) await repo.insert(job('key_a', n, n === 5 ? 4000 : n * 1000));
      await repo.insert(job('key_b', 9, 9000));
      const first = await repo.list('key_a', { limit: 2 });
      expect(first.videos.map((v) => v.id)).to.deep.equal(['video_0005', 'video_0004']);
      expect(first.hasMore).to.equal(true);
      const rest = await repo.list('key_a', { limit: 10, after: { createdAt: 4000, id: 'video_0004' } });
      expect(rest.videos.map((v) => v.id)).to.deep.equal(['video_0003', 'video_0002', 'video_0001']);
      expect(rest.hasMore).to.equal(false);
    });

    it('deletes under its own key, finds unfinished and expired jobs', async () => {
      await repo.insert(job('key_a', 1, 1000, { status: 'in_progress', attempts: 1 }));
      await repo.insert(job('key_a', 2, 500));
      await repo.insert(job('key_a', 3, 3000, { status: 'completed', progress: 100, expiresAt: 10_000 }));
      await repo.insert(job('key_a', 4, 4000, { status: 'failed', error: 'x', expiresAt: 20_000 }));
      await repo.insert(job('key_a', 5, 5000, { status: 'completed', progress: 100, expiresAt: null }));
      expect((await repo.unfinished()).map((j) => j.id)).to.deep.equal(['video_0002', 'video_0001']);
      await repo.insert(job('key_b', 6, 6000));
      expect([await repo.countUnfinished('key_a'), await repo.countUnfinished('key_b'), await repo.countUnfinished('key_c')]).to.deep.equal(
        [2, 1, 0],
      );
      expect((await repo.expired(15_000, 10)).map((j) => j.id)).to.deep.equal(['video_0003']);
      expect((await repo.expired(25_000, 10)).map((j) => j.id)).to.deep.equal(['video_0003', 'video_0004']);
      expect(await repo.delete('key_b', 'video_0003')).to.equal(null);
      expect((await repo.delete('key_a', 'video_0003'))?.id).to.equal('video_0003');
      expect(await repo.get('video_0003')).to.equal(null);
    });
  });
}
