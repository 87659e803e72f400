import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { InvalidRequestError, ManageSipConfig, type Clock, type ManageApiKeys, type SipConfigRepository } from '@svc/core';
import { SecretBox, sealerMadeOnFirstUse, TypeOrmSipConfigRepository } from '@svc/adapters-storage';
import { digestHa1, webhookAddress, type SipAccounts, type SipAccount, type IncomingCall } from '@svc/adapters-sip';
import type { AddressPolicy } from '@svc/adapters-media';
import type { DataSource } from 'typeorm';
import { rethrowUnavailable } from '../runtime/rethrow-unavailable.js';

/** The key file the webhook secrets are sealed with when SVC_SIP_CONFIG_KEY is unset (created 0600 on first use). */
export const SIP_CONFIG_KEY_FILE = 'sip-config.key';

/** The stored per-key SIP settings, their webhook secrets sealed with SVC_SIP_CONFIG_KEY or the data directory's key file. */
export function sipConfigRepository(dataSource: DataSource, base64Key: string, dataDir: string): SipConfigRepository {
  // Made when first used: a server without SIP calls never creates the key file.
  const box = sealerMadeOnFirstUse(() => SecretBox.fromSettingOrFile(base64Key, join(dataDir, SIP_CONFIG_KEY_FILE)));
  return new TypeOrmSipConfigRepository(dataSource, box);
}

/** SVC_SIP_CONFIG_KEY: empty, or 32 bytes in base64. */
export function checkSipConfigKey(base64Key: string): void {
  if (base64Key && Buffer.from(base64Key, 'base64').length !== 32)
    throw new Error(
      'Invalid configuration SVC_SIP_CONFIG_KEY: 32 random bytes in base64 (openssl rand -base64 32), or unset for a key file in SVC_DATA_DIR.',
    );
}

export interface ManageSipConfigOptions {
  repo: SipConfigRepository;
  clock: Clock;
  addressPolicy: AddressPolicy;
  checkSession(session: Record<string, unknown>): void;
  /** The server's own digest user (SVC_SIP_USERNAME when SVC_SIP_PASSWORD is set): no key may take it. */
  serverUsername: string | null;
  keys: Pick<ManageApiKeys, 'isActive'>;
}

/** The use cases of /v1/realtime/sip/config, with the digest, the secrets and the webhook URL rule of this server. */
export function manageSipConfig(options: ManageSipConfigOptions): ManageSipConfig {
  return new ManageSipConfig({
    repo: options.repo,
    clock: options.clock,
    ha1: digestHa1,
    newWebhookSecret: () => `whsec_${randomBytes(32).toString('base64')}`,
    checkSession: options.checkSession,
    reservedUsernames: options.serverUsername ? [options.serverUsername] : [],
    isKeyActive: (apiKeyId) => options.keys.isActive(apiKeyId),
    async checkWebhookUrl(text) {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        throw new InvalidRequestError("Invalid value for 'webhook_url': not a URL.", 'webhook_url');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new InvalidRequestError("Invalid value for 'webhook_url': must be http or https.", 'webhook_url');
      // The same rule as every delivery (checked again then: what a name resolves to can change).
      await webhookAddress(url, options.addressPolicy).catch((err: unknown) => {
        throw new InvalidRequestError(`Invalid value for 'webhook_url': ${(err as Error).message}.`, 'webhook_url');
      });
    },
  });
}

export interface StoredSipAccountsOptions {
  repo: SipConfigRepository;
  keys: ManageApiKeys;
  /** The session of a call answered at once when its key stored none (SVC_SIP_SESSION). */
  defaultSession: Record<string, unknown>;
  /** The realtime.call.incoming delivery to a key's URL, signed with its secret (rejects when it could not be delivered). */
  webhook(url: string, secret: string): (call: IncomingCall, gone: AbortSignal) => Promise<void>;
}

/** The digest users keys stored, for the SIP server: the user an INVITE proves selects the key, its session and its webhook. */
export function storedSipAccounts(options: StoredSipAccountsOptions): SipAccounts {
  const { repo, keys } = options;
  return {
    ha1: async (username) => (await repo.findByUsername(username))?.ha1 ?? null,
    any: async () => (await repo.count()) > 0,
    async account(username) {
      const config = await repo.findByUsername(username);
      if (!config) return null;
      const account: SipAccount = {
        principal: () => keys.principalOf(config.apiKeyId).catch(rethrowUnavailable),
        session: config.session ?? options.defaultSession,
      };
      if (config.webhookUrl && config.webhookSecret) account.announce = options.webhook(config.webhookUrl, config.webhookSecret);
      return account;
    },
  };
}
