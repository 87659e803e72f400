import { expect } from 'chai';
import { LargeBodyLimitError } from '../../src/shared/errors.js';
import { LargeBodyLimit } from '../../src/shared/large-body-limit.js';
import { LimitedDownloads } from '../../src/media/limited-downloads.js';
import type { MediaFetcher, MediaFetchOptions, MediaInput } from '../../src/media/media-fetcher.js';

/** A fetcher whose URL downloads last until the test ends them (resolve or reject), recording each it started. */
class HeldFetcher implements MediaFetcher {
  readonly started: string[] = [];
  private readonly ends: Array<{ resolve: (b: Uint8Array) => void; reject: (e: unknown) => void }> = [];
  fetch(input: MediaInput, _options: MediaFetchOptions): Promise<Uint8Array> {
    if (typeof input !== 'string' || !/^\s*https?:/i.test(input)) return Promise.resolve(new Uint8Array(1));
    this.started.push(input);
    return new Promise((resolve, reject) => this.ends.push({ resolve, reject }));
  }
  finish(i: number, outcome: 'ok' | 'fail'): void {
    if (outcome === 'ok') this.ends[i]!.resolve(new Uint8Array(3));
    else this.ends[i]!.reject(new Error('connection reset'));
  }
}

const URL = 'https://media.example/clip.wav';
const as = (apiKeyId: string): MediaFetchOptions => ({ param: 'ref_audio', apiKeyId });

describe('LimitedDownloads: media URLs count in the large transfers of their key (SVC_MAX_LARGE_BODIES_PER_KEY)', () => {
  it('a download holds a place from before it starts until it ends; past the cap: LargeBodyLimitError, nothing fetched', async () => {
    const inner = new HeldFetcher();
    const limit = new LargeBodyLimit(2);
    const fetcher = new LimitedDownloads(inner, limit);
    const first = fetcher.fetch(URL, as('key_a'));
    const second = fetcher.fetch(` ${URL.toUpperCase()}`, as('key_a'));
    const err = await fetcher.fetch(URL, as('key_a')).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(LargeBodyLimitError);
    expect((err as LargeBodyLimitError).retryAfterSeconds).to.equal(1);
    expect(inner.started, 'the refused download never started').to.have.length(2);
    // the same count as the large request bodies: one more body of key_a is refused too
    expect(() => limit.take('key_a')).to.throw(LargeBodyLimitError);
    // other keys, inline media and uploads, calls without a key: not counted
    void fetcher.fetch(URL, as('key_b'));
    expect(await fetcher.fetch('UklGRg==', as('key_a'))).to.have.length(1);
    expect(await fetcher.fetch(new Uint8Array(5), as('key_a'))).to.have.length(1);
    void fetcher.fetch(URL, { param: 'ref_audio' });
    expect(inner.started).to.have.length(4);

    inner.finish(0, 'ok');
    expect(await first).to.have.length(3);
    const third = fetcher.fetch(URL, as('key_a'));
    expect(inner.started, 'the place came back when the download ended').to.have.length(5);
    inner.finish(1, 'fail');
    await second.catch(() => undefined);
    inner.finish(4, 'fail');
    await third.catch(() => undefined);
    // both failures gave their places back: two downloads fit again
    void fetcher.fetch(URL, as('key_a'));
    void fetcher.fetch(URL, as('key_a'));
    expect(inner.started).to.have.length(7);
  });

  it('0 is no limit', async () => {
    const inner = new HeldFetcher();
    const fetcher = new LimitedDownloads(inner, new LargeBodyLimit(0));
    for (let i = 0; i < 20; i++) void fetcher.fetch(URL, as('key_a'));
    expect(inner.started).to.have.length(20);
  });
});
