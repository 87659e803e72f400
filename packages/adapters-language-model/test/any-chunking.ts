import { expect } from 'chai';

/**
 * The three cuts every stream reader must not notice: one chunk, every split into two chunks (CR|LF and
 * multi-byte characters included), byte by byte. Shared by the SSE reader's and the model client's tests.
 */
export function itReadsAnyChunking<T>(bytes: Uint8Array, read: (parts: Uint8Array[]) => Promise<T[]>, expected: T[]): void {
  it('reads the whole stream in one chunk', async () => {
    expect(await read([bytes])).to.deep.equal(expected);
  });

  it('gives the same events for EVERY split of the stream into two chunks (CR|LF, multi-byte characters included)', async () => {
    const differing: number[] = [];
    for (let i = 1; i < bytes.length; i++) {
      const got = await read([bytes.subarray(0, i), bytes.subarray(i)]);
      if (JSON.stringify(got) !== JSON.stringify(expected)) differing.push(i);
    }
    expect(differing, 'split offsets that changed the events').to.deep.equal([]);
  });

  it('gives the same events byte by byte', async () => {
    expect(await read([...bytes].map((b) => Uint8Array.of(b)))).to.deep.equal(expected);
  });
}
