// @test-tier slow: renders avatar frames
import { expect } from 'chai';
import { LandmarkAvatarRenderer } from '../src/landmark-avatar-renderer.js';
import { warmUpWarper } from '../src/warm-up-warper.js';
import { WorkerPool } from '@svc/adapters-runtime';
import { collectFrames, samplePhoto } from './avatar-measures.js';

describe('warming the render thread up (issue 24: a new photo first frame)', function () {
  this.timeout(120000);

  it('the made-up face exercises what a real photo does: the mouth, eyelid and head poses warp far more of it than the rest pose', () => {
    const { changedPixels } = warmUpWarper(2);
    expect(changedPixels).to.have.length(4);
    const [rest, ...moving] = changedPixels as [number, ...number[]];
    for (const changed of moving)
      expect(changed, `a moving pose warps the head (rest pose: ${rest} pixels)`).to.be.greaterThan(rest + 20000);
  });

  it('the renderer sends ONE warm-up to its render thread, after its first whole clip once it has been idle for a second, never while it works', async () => {
    const sent: string[] = [];
    const run = WorkerPool.prototype.run;
    WorkerPool.prototype.run = function (this: WorkerPool<unknown, unknown>, request: unknown, options?: Parameters<typeof run>[1]) {
      if (request && typeof request === 'object')
        sent.push(
          'warmUp' in request ? 'warm-up' : 'poses' in request ? `frames ${(request as { poses: unknown[] }).poses.length}` : 'other',
        );
      return run.call(this, request, options);
    } as typeof run;
    const renderer = new LandmarkAvatarRenderer({});
    try {
      const audio = { samples: Int16Array.from({ length: 16000 * 0.4 }, (_, i) => Math.round(5000 * Math.sin(i / 9))), sampleRate: 16000 };
      const first = await renderer.prepare(samplePhoto(2), '640x640');
      expect(await collectFrames(first.render({ audio }))).to.have.length(10);
      // a second video right after the first: no warm-up while it is prepared and rendered
      const second = await renderer.prepare(samplePhoto(3), '640x640');
      expect(await collectFrames(second.render({ audio }))).to.have.length(10);
      expect(sent, 'nothing sent while the renderer works').to.not.include('warm-up');
      for (let i = 0; i < 300 && !sent.includes('warm-up'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(
        sent.filter((s) => s === 'warm-up'),
        'once idle',
      ).to.have.length(1);
      expect(sent.at(-1)).to.equal('warm-up');
      const third = await renderer.prepare(samplePhoto(4), '640x640');
      expect(await collectFrames(third.render({ audio }))).to.have.length(10);
      await new Promise((r) => setTimeout(r, 1500));
      expect(
        sent.filter((s) => s === 'warm-up'),
        'only once',
      ).to.have.length(1);
      expect(
        sent.filter((s) => s === 'frames 0'),
        'each prepared photo had its warper built ahead',
      ).to.have.length(3);
    } finally {
      WorkerPool.prototype.run = run;
      await renderer.close();
    }
  });
});
