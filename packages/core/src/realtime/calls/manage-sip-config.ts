import type { Principal } from '../../auth/api-key.js';
import { InvalidApiKeyError, InvalidRequestError, NotFoundError } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import type { SipConfigRepository, SipKeyConfig } from './sip-config.js';

/** What a key asks for: its digest user and password, and where its calls are announced (or the session they are answered with). */
export interface SipConfigInput {
  username: string;
  password: string;
  webhookUrl: string | null;
  session: Record<string, unknown> | null;
}

export interface ManageSipConfigDeps {
  repo: SipConfigRepository;
  clock: Clock;
  /** MD5(username:realm:password): what is stored instead of the password. */
  ha1(username: string, password: string): string;
  /** A fresh Standard Webhooks secret (`whsec_` and random bytes). */
  newWebhookSecret(): string;
  /** Throws (param `webhook_url`) when the URL may not be posted to (not http(s), or an address that is not public). */
  checkWebhookUrl(url: string): Promise<void>;
  /** Throws the spec's error when session.update would refuse this `session`. */
  checkSession(session: Record<string, unknown>): void;
  /** User names no key may take (the server's own digest user). */
  reservedUsernames: readonly string[];
  /** Whether the key still authenticates (a request's key may be revoked while it is handled). */
  isKeyActive(apiKeyId: string): Promise<boolean>;
}

/** A configuration and, when it was just made or rotated, the webhook secret (shown this once). */
export interface SipConfigResult {
  config: SipKeyConfig;
  newWebhookSecret: string | null;
}

/**
 * A key's own SIP settings (docs/sip.md, "SIP credentials per API key"): each key reads and changes
 * only its own, found by the key's id; nothing here returns the password (never stored) and only
 * creation or rotation returns the webhook secret.
 */
export class ManageSipConfig {
  constructor(private readonly deps: ManageSipConfigDeps) {}

  async get(principal: Principal): Promise<SipKeyConfig> {
    const config = await this.deps.repo.get(principal.apiKeyId);
    if (!config) throw new NotFoundError('This API key has no SIP configuration.');
    return config;
  }

  /** Creates or replaces the key's configuration; the webhook secret is kept while a webhook URL stays set. */
  async set(principal: Principal, input: SipConfigInput): Promise<SipConfigResult> {
    if (this.deps.reservedUsernames.includes(input.username))
      throw new InvalidRequestError(`The user name '${input.username}' is taken.`, 'username');
    const holder = await this.deps.repo.findByUsername(input.username);
    if (holder && holder.apiKeyId !== principal.apiKeyId)
      throw new InvalidRequestError(`The user name '${input.username}' is taken.`, 'username');
    if (input.webhookUrl !== null) await this.deps.checkWebhookUrl(input.webhookUrl);
    if (input.session !== null) this.deps.checkSession(input.session);
    const existing = await this.deps.repo.get(principal.apiKeyId);
    const keptSecret = input.webhookUrl !== null ? (existing?.webhookSecret ?? null) : null;
    const newWebhookSecret = input.webhookUrl !== null && keptSecret === null ? this.deps.newWebhookSecret() : null;
    const now = this.deps.clock.now();
    const config: SipKeyConfig = {
      apiKeyId: principal.apiKeyId,
      username: input.username,
      ha1: this.deps.ha1(input.username, input.password),
      webhookUrl: input.webhookUrl,
      webhookSecret: keptSecret ?? newWebhookSecret,
      session: input.session,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    await this.store(config);
    return { config, newWebhookSecret };
  }

  /** A new webhook secret; the old one stops signing at once. */
  async rotateWebhookSecret(principal: Principal): Promise<SipConfigResult> {
    const existing = await this.get(principal);
    if (existing.webhookUrl === null)
      throw new InvalidRequestError('This SIP configuration has no webhook_url, so no webhook secret to rotate.', 'webhook_url');
    const newWebhookSecret = this.deps.newWebhookSecret();
    const config = { ...existing, webhookSecret: newWebhookSecret, updatedAt: this.deps.clock.now() };
    await this.store(config);
    return { config, newWebhookSecret };
  }

  async delete(principal: Principal): Promise<void> {
    if (!(await this.deps.repo.delete(principal.apiKeyId))) throw new NotFoundError('This API key has no SIP configuration.');
  }

  /**
   * Saves, then checks that the key is still active. A revocation releases the key's configuration
   * after marking the key revoked; a save from a request authenticated before that (its webhook URL
   * still being checked, say) can land after the release and would outlive the key. Checked after
   * the save, whichever comes last removes it.
   */
  private async store(config: SipKeyConfig): Promise<void> {
    await this.deps.repo.save(config);
    if (await this.deps.isKeyActive(config.apiKeyId)) return;
    await this.deps.repo.delete(config.apiKeyId);
    throw new InvalidApiKeyError('This API key was revoked.');
  }
}
