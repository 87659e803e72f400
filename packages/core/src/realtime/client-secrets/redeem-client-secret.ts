import type { Principal } from '../../auth/api-key.js';
import type { Clock } from '../../shared/clock.js';
import { InvalidApiKeyError } from '../../shared/errors.js';
import type { Hasher } from '../../shared/ids.js';
import { CLIENT_SECRET_PREFIX, type ClientSecretRepository } from './client-secret.js';

export interface RedeemedClientSecret {
  principal: Principal;
  /** The session id announced when the secret was minted; the WebSocket session uses it. */
  sessionId: string;
}

/**
 * Checks an ephemeral key presented on the WebSocket: unknown or expired keys are refused, and so
 * are keys whose minting API key has been revoked since (a secret never outlives its key).
 */
export class RedeemClientSecret {
  constructor(
    private readonly repo: ClientSecretRepository,
    private readonly hasher: Hasher,
    private readonly clock: Clock,
    private readonly apiKeyIsActive: (apiKeyId: string) => Promise<boolean> = async () => true,
  ) {}

  async execute(secret: string): Promise<RedeemedClientSecret> {
    if (!secret.startsWith(CLIENT_SECRET_PREFIX)) throw new InvalidApiKeyError('Invalid ephemeral key.');
    const record = await this.repo.findBySecretHash(this.hasher.sha256(secret));
    if (!record) throw new InvalidApiKeyError('Invalid ephemeral key.');
    if (record.expiresAt <= this.clock.now()) throw new InvalidApiKeyError('The ephemeral key has expired.');
    if (!(await this.apiKeyIsActive(record.apiKeyId)))
      throw new InvalidApiKeyError('The API key that minted this ephemeral key was revoked.');
    return { principal: { apiKeyId: record.apiKeyId, name: record.apiKeyName }, sessionId: record.id };
  }
}
