import type { KeyHolding } from '../../auth/api-key.js';

/**
 * One API key's SIP settings (docs/sip.md, "Per-key SIP credentials"): the digest user name that
 * selects the key when a phone calls, the digest secret as SIP servers keep it (HA1 =
 * MD5(user:realm:password), never the password), and where its `realtime.call.incoming` webhook
 * goes, signed with its own secret. The repository keeps the webhook secret unreadable at rest; this
 * record carries it in the clear because signing needs it.
 */
export interface SipKeyConfig {
  apiKeyId: string;
  /** Unique across keys: the digest user name is how an INVITE names its key. */
  username: string;
  /** MD5(username:realm:password) in lowercase hex. */
  ha1: string;
  webhookUrl: string | null;
  /** `whsec_...`, set whenever webhookUrl is. */
  webhookSecret: string | null;
  /** The session a call is answered with when no webhook is set (session.update's `session`). */
  session: Record<string, unknown> | null;
  /** Milliseconds since epoch. */
  createdAt: number;
  updatedAt: number;
}

export interface SipConfigRepository {
  get(apiKeyId: string): Promise<SipKeyConfig | null>;
  findByUsername(username: string): Promise<SipKeyConfig | null>;
  /** Creates or replaces the key's configuration. */
  save(config: SipKeyConfig): Promise<void>;
  delete(apiKeyId: string): Promise<boolean>;
  count(): Promise<number>;
}

/**
 * A key's SIP configuration as something its revocation releases: deleted, so its user name is free
 * for another key, a phone proving it is challenged as an unknown user, and its HA1 and webhook secret
 * are gone from the database (not left readable behind a key that can no longer use them).
 */
export function sipConfigHolding(repo: Pick<SipConfigRepository, 'delete'>): KeyHolding {
  return { release: async (apiKeyId) => void (await repo.delete(apiKeyId)) };
}
