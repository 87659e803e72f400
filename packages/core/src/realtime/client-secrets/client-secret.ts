/** A minted ephemeral key; only the SHA-256 digest of the secret is stored. */
export interface ClientSecretRecord {
  /** The realtime session id announced at minting (`sess_...`); also the record id. */
  id: string;
  secretHash: string;
  /** The API key that minted it: quota, voices and concurrency are counted against it. */
  apiKeyId: string;
  apiKeyName: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
}

export interface ClientSecretRepository {
  insert(record: ClientSecretRecord): Promise<void>;
  findBySecretHash(hash: string): Promise<ClientSecretRecord | null>;
  /** Removes records that expired before `now`; returns how many. */
  deleteExpired(now: number): Promise<number>;
}

export const CLIENT_SECRET_PREFIX = 'svc-eph-';
export const CLIENT_SECRET_TTL = { min: 10, max: 7200, default: 600 } as const;
