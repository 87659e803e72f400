/** A stored API key: only the digest of the secret is kept. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  /** Hex SHA-256 of the full secret. */
  secretHash: string;
  /** First characters of the secret, shown in listings so a person can tell keys apart. */
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
}

/** The authenticated caller, as every use case sees it. */
export interface Principal {
  apiKeyId: string;
  name: string;
}

export interface ApiKeyRepository {
  insert(record: ApiKeyRecord): Promise<void>;
  findBySecretHash(hash: string): Promise<ApiKeyRecord | null>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  revoke(id: string, at: number): Promise<boolean>;
  count(): Promise<number>;
}

/**
 * What a capability stores for an API key that must not outlive the key (its SIP digest user, HA1
 * and webhook secret): revoking the key releases it. It lives in the store every process shares, so
 * a revocation from any process (the keys CLI included) releases it for all of them.
 */
export interface KeyHolding {
  /** Deletes what the key holds; a key holding nothing is no error (a revocation may be run again). */
  release(apiKeyId: string): Promise<void>;
}

export const API_KEY_PREFIX = 'svc-';
