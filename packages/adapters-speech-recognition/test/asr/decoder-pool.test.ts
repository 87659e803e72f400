import { expect } from 'chai';
import { DecoderPool } from '../../src/index.js';
import type { PocketsphinxHelper } from '../../src/asr/pocketsphinx-helper.js';

/** A decoder process stand-in: loaded at once, or when `finishLoading()` is called. */
class FakeDecoder {
  loaded: boolean;
  alive = true;
  backlogMs = 0;
  decodedSamples = 0;
  readonly ready: Promise<void>;
  finishLoading!: () => void;
  constructor(
    readonly name: string,
    loaded: boolean,
  ) {
    this.loaded = loaded;
    this.ready = loaded
      ? Promise.resolve()
      : new Promise((resolve) => {
          this.finishLoading = () => {
            this.loaded = true;
            resolve();
          };
        });
  }
  kill(): void {
    this.alive = false;
  }
}

function poolOf(warm: number, size: number, loadsAtOnce = 1) {
  const spawned: FakeDecoder[] = [];
  const helpers = Array.from({ length: warm }, (_, i) => new FakeDecoder(`warm-${i}`, true));
  const pool = new DecoderPool(
    helpers as unknown as PocketsphinxHelper[],
    () => {
      const d = new FakeDecoder(`spawned-${spawned.length}`, false);
      spawned.push(d);
      return d as unknown as PocketsphinxHelper;
    },
    size,
    () => undefined,
    loadsAtOnce,
  );
  const lend = () =>
    new Promise<{ name: string; giveBack: () => void }>((lent) => {
      void pool.use(
        undefined,
        (helper) => new Promise<void>((giveBack) => lent({ name: (helper as unknown as FakeDecoder).name, giveBack })),
      );
    });
  return { pool, spawned, lend };
}

describe('DecoderPool: decoders loaded ahead for the sessions that reserve them', () => {
  it('loads one per reservation beyond the warm ones, up to its size, a limited number at a time', async () => {
    const { pool, spawned } = poolOf(1, 4, 2);
    pool.reserve();
    expect(spawned, 'the warm decoder covers the first session').to.have.length(0);
    pool.reserve();
    pool.reserve();
    pool.reserve();
    pool.reserve();
    expect(spawned, 'two load at once').to.have.length(2);
    spawned[0]!.finishLoading();
    await Promise.resolve();
    await Promise.resolve();
    expect(spawned, 'the next starts when one is loaded; never beyond the size').to.have.length(3);
    expect(pool.load.started).to.equal(4);
  });

  it('lends a loaded decoder before one still loading ahead', async () => {
    const { pool, spawned, lend } = poolOf(1, 3);
    pool.reserve();
    pool.reserve();
    expect(spawned).to.have.length(1);
    const first = await lend();
    expect(first.name, 'the warm one, not the one loading for the next session').to.equal('warm-0');
    const second = lend();
    spawned[0]!.finishLoading();
    expect((await second).name).to.equal('spawned-0');
  });

  it('a released reservation keeps its decoder warm; releasing twice counts once', async () => {
    const { pool, spawned } = poolOf(0, 3);
    const release = pool.reserve();
    expect(spawned).to.have.length(1);
    release();
    release();
    pool.reserve();
    expect(spawned, 'the decoder loaded for the first session serves the next').to.have.length(1);
    expect(pool.load.started).to.equal(1);
  });
});
