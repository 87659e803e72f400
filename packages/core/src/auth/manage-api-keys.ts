import type { Clock } from '../shared/clock.js';
import type { Hasher, IdGenerator } from '../shared/ids.js';
import { InvalidApiKeyError } from '../shared/errors.js';
import { API_KEY_PREFIX, type ApiKeyRecord, type ApiKeyRepository, type KeyHolding, type Principal } from './api-key.js';

/**
 * Creating, listing, revoking and checking API keys. Secrets are shown once at creation and stored
 * only as SHA-256 digests; keys from configuration (SVC_API_KEYS) are accepted by digest too.
 * Revoking a key also releases what capabilities hold for it (`holdings`: its SIP configuration).
 */
export class ManageApiKeys {
  private readonly configuredHashes: Map<string, Principal>;

  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly ids: IdGenerator,
    private readonly hasher: Hasher,
    private readonly clock: Clock,
    configuredKeys: readonly string[] = [],
    private readonly holdings: readonly KeyHolding[] = [],
  ) {
    this.configuredHashes = new Map(
      configuredKeys.map((key, i) => {
        const hash = hasher.sha256(key);
        return [hash, { apiKeyId: `key_cfg_${hash.slice(0, 16)}`, name: `configured-${i + 1}` }];
      }),
    );
  }

  async create(name: string): Promise<{ record: ApiKeyRecord; secret: string }> {
    const secret = this.ids.secret(API_KEY_PREFIX);
    const record: ApiKeyRecord = {
      id: this.ids.id('key_'),
      name,
      secretHash: this.hasher.sha256(secret),
      prefix: secret.slice(0, API_KEY_PREFIX.length + 6),
      createdAt: this.clock.now(),
      revokedAt: null,
    };
    await this.repo.insert(record);
    return { record, secret };
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.repo.list();
  }

  /**
   * Revokes a stored key (false when none is active under this id) and releases its holdings. The
   * key is revoked first: it then authenticates no new request, so none of its own can store a
   * holding again after they are released. A key found already revoked has its holdings released
   * too, so running the revocation again finishes one whose release failed (the error is thrown:
   * the key stays revoked) or one revoked before its capability released anything. Configured keys
   * (SVC_API_KEYS) are not stored, cannot be revoked, and keep theirs.
   */
  async revoke(id: string): Promise<boolean> {
    const revoked = await this.repo.revoke(id, this.clock.now());
    const record = revoked ? null : await this.repo.findById(id);
    if (revoked || (record !== null && record.revokedAt !== null)) for (const holding of this.holdings) await holding.release(id);
    return revoked;
  }

  /** True when neither stored nor configured keys exist (first start: the server mints one). */
  async isEmpty(): Promise<boolean> {
    return this.configuredHashes.size === 0 && (await this.repo.count()) === 0;
  }

  /** Whether a key id still authenticates (configured, or stored and not revoked). */
  async isActive(apiKeyId: string): Promise<boolean> {
    return (await this.principalOf(apiKeyId)) !== null;
  }

  /**
   * The principal of an active key named by its id (as `keys list` shows it), or null when no such
   * key exists or it was revoked: a transport without credentials of its own (the Wyoming port)
   * acts as the key an operator names, without the secret having to appear in its configuration.
   */
  async principalOf(apiKeyId: string): Promise<Principal | null> {
    for (const principal of this.configuredHashes.values()) if (principal.apiKeyId === apiKeyId) return principal;
    const record = await this.repo.findById(apiKeyId);
    return record && record.revokedAt === null ? { apiKeyId: record.id, name: record.name } : null;
  }

  /** The principal for a presented secret, or InvalidApiKeyError. */
  async authenticate(secret: string | null | undefined): Promise<Principal> {
    if (!secret) throw new InvalidApiKeyError();
    const hash = this.hasher.sha256(secret);
    const configured = this.configuredHashes.get(hash);
    if (configured) return configured;
    const record = await this.repo.findBySecretHash(hash);
    if (!record || record.revokedAt !== null) throw new InvalidApiKeyError('Invalid API key.');
    return { apiKeyId: record.id, name: record.name };
  }
}
