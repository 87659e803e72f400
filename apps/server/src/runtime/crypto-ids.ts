import { createHash, randomBytes } from 'node:crypto';
import type { Hasher, IdGenerator } from '@svc/core';

/** Ids and secrets from the OS CSPRNG; digests with SHA-256. */
export class CryptoIdGenerator implements IdGenerator {
  id(prefix: string): string {
    return prefix + randomBytes(12).toString('hex');
  }
  secret(prefix: string): string {
    return prefix + randomBytes(32).toString('base64url');
  }
}

export class Sha256Hasher implements Hasher {
  sha256(data: string | Uint8Array): string {
    return createHash('sha256').update(data).digest('hex');
  }
}
