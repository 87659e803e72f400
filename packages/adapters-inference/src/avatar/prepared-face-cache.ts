import { createHash } from 'node:crypto';
import type { Point, RgbImage } from './rgb-image.js';

/** A photo prepared once: the framed picture and its landmarks (derived data only, never the photo). */
export interface CachedFace {
  framed: RgbImage;
  landmarks: Point[];
}

/**
 * The last `capacity` prepared faces, keyed by the SHA-256 of the photo's bytes and the output size:
 * the same photo sent again (an app that streams many clips of one presenter) skips decoding and the
 * face detector (0.3-1 s). Least recently used goes first. Entries are ~1.2 MB (a 640x640 RGB frame).
 * The framed bytes are shared by every avatar made from an entry: nothing writes to them.
 */
export class PreparedFaceCache {
  private readonly entries = new Map<string, CachedFace>();

  constructor(readonly capacity: number) {}

  static key(image: Uint8Array, width: number, height: number): string {
    return `${createHash('sha256').update(image).digest('hex')}:${width}x${height}`;
  }

  get(key: string): CachedFace | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, face: CachedFace): void {
    if (this.capacity <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, face);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
