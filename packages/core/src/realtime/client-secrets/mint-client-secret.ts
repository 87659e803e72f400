import type { Principal } from '../../auth/api-key.js';
import { unixSeconds, type Clock } from '../../shared/clock.js';
import { InvalidParameterError } from '../../shared/errors.js';
import type { Hasher, IdGenerator } from '../../shared/ids.js';
import { CLIENT_SECRET_PREFIX, CLIENT_SECRET_TTL, type ClientSecretRepository } from './client-secret.js';

export interface ClientSecretResponse {
  object: 'realtime.client_secret';
  value: string;
  expires_at: number;
  session: { id: string; object: 'realtime.session' };
}

/**
 * `POST /v1/realtime/client_secrets`. The body's `session` object is ignored (sessions are
 * configured over the WebSocket); the secret is bound to the minting API key.
 */
export class MintClientSecret {
  constructor(
    private readonly repo: ClientSecretRepository,
    private readonly ids: IdGenerator,
    private readonly hasher: Hasher,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, body: unknown): Promise<ClientSecretResponse> {
    const seconds = parseExpiresAfter(body);
    const value = this.ids.secret(CLIENT_SECRET_PREFIX);
    const now = this.clock.now();
    const record = {
      id: this.ids.id('sess_'),
      secretHash: this.hasher.sha256(value),
      apiKeyId: principal.apiKeyId,
      apiKeyName: principal.name,
      createdAt: now,
      expiresAt: now + seconds * 1000,
    };
    await this.repo.insert(record);
    return {
      object: 'realtime.client_secret',
      value,
      expires_at: unixSeconds(record.expiresAt),
      session: { id: record.id, object: 'realtime.session' },
    };
  }
}

function parseExpiresAfter(body: unknown): number {
  if (body === undefined || body === null) return CLIENT_SECRET_TTL.default;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidParameterError('The request body must be a JSON object.');
  }
  const raw = (body as Record<string, unknown>).expires_after;
  if (raw === undefined || raw === null) return CLIENT_SECRET_TTL.default;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidParameterError("'expires_after' must be an object.", 'expires_after');
  }
  const seconds = (raw as Record<string, unknown>).seconds;
  if (seconds === undefined || seconds === null) return CLIENT_SECRET_TTL.default;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < CLIENT_SECRET_TTL.min || seconds > CLIENT_SECRET_TTL.max) {
    throw new InvalidParameterError(
      `'expires_after.seconds' must be an integer from ${CLIENT_SECRET_TTL.min} to ${CLIENT_SECRET_TTL.max}.`,
      'expires_after.seconds',
    );
  }
  return seconds;
}
