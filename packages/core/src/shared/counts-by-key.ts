/**
 * How many of something each key holds now (sessions of an API key, calls being placed, requests
 * being read). A key back at zero is forgotten, so the map is only as large as what is held.
 */
export class CountsByKey {
  private readonly counts = new Map<string, number>();

  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string): void {
    this.counts.set(key, this.of(key) + 1);
  }

  /** One fewer; a key not held stays at zero. */
  remove(key: string): void {
    const left = this.of(key) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }
}
