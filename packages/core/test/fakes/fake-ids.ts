import type { Hasher, IdGenerator } from '../../src/shared/ids.js';

export class SequentialIds implements IdGenerator {
  private n = 0;
  id(prefix: string): string {
    return `${prefix}${String(++this.n).padStart(4, '0')}`;
  }
  secret(prefix: string): string {
    return `${prefix}secret${++this.n}`;
  }
}

/** Not cryptographic: a reversible stand-in so tests can see that secrets are not stored as-is. */
export class FakeHasher implements Hasher {
  sha256(data: string | Uint8Array): string {
    const text = typeof data === 'string' ? data : Array.from(data).join(',');
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
    return `h${h.toString(16)}:${text.length}`;
  }
}
