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

/** `spawnLoaded`: decoders started later are loaded at once (else when `finishLoading()` is called). */
function poolOf(warm: number, size: number, { loadsAtOnce = 1, idleStopMs = Infinity, spawnLoaded = false } = {}) {
  const spawned: FakeDecoder[] = [];
  const helpers = Array.from({ length: warm }, (_, i) => new FakeDecoder(`warm-${i}`, true));
  const pool = new DecoderPool(
    helpers as unknown as PocketsphinxHelper[],
    () => {
      const d = new FakeDecoder(`spawned-${spawned.length}`, spawnLoaded);
      spawned.push(d);
      return d as unknown as PocketsphinxHelper;
    },
    size,
    () => undefined,
    loadsAtOnce,
    idleStopMs,
  );
  const lend = () =>
    new Promise<{ name: string; giveBack: () => void }>((lent) => {
      void pool.use(
        undefined,
        (helper) => new Promise<void>((giveBack) => lent({ name: (helper as unknown as FakeDecoder).name, giveBack })),
      );
    });
  return { pool, helpers, spawned, lend };
}

describe('DecoderPool: decoders loaded ahead for the sessions that reserve them', () => {
  it('loads one per reservation beyond the warm ones, up to its size, a limited number at a time', async () => {
    const { pool, spawned } = poolOf(1, 4, { loadsAtOnce: 2 });
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

describe('DecoderPool: decoders it does not need are stopped once unused for a while', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Waits until `done()` holds or `withinMs` passed (a loaded machine runs the idle timers late). */
  const until = async (done: () => boolean, withinMs = 3000) => {
    for (const end = Date.now() + withinMs; !done() && Date.now() < end;) await sleep(10);
  };
  it('after a burst of sessions, stops the decoders loaded for them and keeps the warm ones', async () => {
    const { pool, helpers, spawned } = poolOf(1, 4, { loadsAtOnce: 4, idleStopMs: 40, spawnLoaded: true });
    const releases = [pool.reserve(), pool.reserve(), pool.reserve()];
    expect(pool.load.started).to.equal(3);
    releases[0]!();
    expect(pool.load.started, 'not at once: a session may come back').to.equal(3);
    await until(() => pool.load.started < 3);
    await sleep(80);
    expect(pool.load.started, 'two sessions still hold theirs').to.equal(2);
    releases[1]!();
    releases[2]!();
    await until(() => pool.load.started < 2);
    await sleep(80);
    expect(pool.load.started).to.equal(1);
    expect(pool.load.stoppedIdle).to.equal(2);
    expect(spawned.map((d) => d.alive)).to.deep.equal([false, false]);
    expect(helpers[0]!.alive, 'the warm decoder stays').to.equal(true);
    // The next burst starts decoders again.
    pool.reserve();
    pool.reserve();
    expect(pool.load.started).to.equal(2);
    pool.close();
  });

  it('does not stop a decoder used within the idle time, nor one in use', async () => {
    // Long enough that a loaded machine's late timers do not reach it by accident.
    const { pool } = poolOf(0, 3, { idleStopMs: 600, spawnLoaded: true });
    const results: Promise<void>[] = [];
    let finishLong!: () => void;
    results.push(pool.use(undefined, () => new Promise<void>((done) => (finishLong = done))));
    await pool.use(undefined, async () => undefined);
    expect(pool.load.started).to.equal(2);
    await sleep(300);
    const usedAt = Date.now();
    await pool.use(undefined, async () => undefined); // used again: its idle time starts over
    await sleep(450);
    // Only meaningful while the idle time since that use has not passed (a stalled machine skips it).
    if (Date.now() - usedAt < 600) expect(pool.load.started, 'used 450 ms ago, and one in use').to.equal(2);
    await until(() => pool.load.started < 2);
    expect(pool.load.started, 'the one in use stays').to.equal(1);
    finishLong();
    await Promise.all(results);
    pool.close();
  });
});
