/** A seeded noise source in [-1, 1): the same signal every run, so a failure reproduces. */
export function seededNoise(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x40000000 - 1;
}
