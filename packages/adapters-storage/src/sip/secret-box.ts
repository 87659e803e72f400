import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const VERSION = 'v1';

/** Seals and opens short secrets (SecretBox, or one made when first used). */
export interface SecretSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** A sealer whose key is loaded (or its key file created) only when a secret is first sealed or opened. */
export function sealerMadeOnFirstUse(make: () => SecretSealer): SecretSealer {
  let made: SecretSealer | null = null;
  return {
    seal: (plain) => (made ??= make()).seal(plain),
    open: (sealed) => (made ??= make()).open(sealed),
  };
}

/**
 * Seals short secrets that the service must read back (a webhook signing secret cannot be hashed:
 * signing needs it) with AES-256-GCM under a server key, so a copy of the database alone does not
 * give them away. Each value has its own random IV; the tag makes a tampered value fail to open.
 */
export class SecretBox implements SecretSealer {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`a secret box key is ${KEY_BYTES} bytes, not ${key.length}`);
    this.key = Buffer.from(key);
  }

  /**
   * The key from a setting (base64 of 32 bytes) or, without one, from a key file: read when it
   * exists, else created with 32 random bytes and mode 0600 (only the service's user reads it).
   */
  static fromSettingOrFile(base64Key: string, keyFile: string): SecretBox {
    if (base64Key) return new SecretBox(Buffer.from(base64Key, 'base64'));
    try {
      return new SecretBox(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    mkdirSync(dirname(keyFile), { recursive: true });
    // 'wx': two processes starting together cannot both write one; the loser reads the winner's.
    try {
      writeFileSync(keyFile, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(keyFile, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return new SecretBox(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64'));
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
  }

  /** The plain text; throws when the value was sealed under another key or altered. */
  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}
