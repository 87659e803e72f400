import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Point, RgbImage } from './rgb-image.js';

/** A photo prepared once: the framed picture and its landmarks (derived data only, never the photo). */
export interface CachedFace {
  framed: RgbImage;
  landmarks: Point[];
}

/**
 * The last `capacity` prepared faces, keyed by the SHA-256 of the photo's bytes and the output size:
 * the same photo sent again (an app that streams many clips of one presenter) skips decoding and the
 * face detector (the costly part of a new photo). Least recently used goes first (lru-cache).
 * Entries are ~1.2 MB (a 640x640 RGB frame). The framed bytes are shared by every avatar made from
 * an entry: nothing writes to them.
 */
export class PreparedFaceCache {
  /** null with a capacity of 0: nothing is kept. */
  private readonly entries: LRUCache<string, CachedFace> | null;

  constructor(readonly capacity: number) {
    this.entries = capacity > 0 ? new LRUCache<string, CachedFace>({ max: capacity }) : null;
  }

  static key(image: Uint8Array, width: number, height: number): string {
    return `${createHash('sha256').update(image).digest('hex')}:${width}x${height}`;
  }

  get(key: string): CachedFace | undefined {
    return this.entries?.get(key);
  }

  set(key: string, face: CachedFace): void {
    this.entries?.set(key, face);
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }
}
