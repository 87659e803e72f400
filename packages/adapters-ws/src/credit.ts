import { ServiceUnavailableError, type Logger, type Principal } from '@svc/core';
import type { Credentials } from './credentials.js';
import type { RealtimeGatewayDeps } from './gateway-types.js';

/** Who a connection's credential names. */
export interface Credited {
  principal: Principal;
  /** The ephemeral key's session id (null for API keys). */
  secretSessionId: string | null;
}

/**
 * The credential's principal; null when it is missing or invalid (close 3000); a refusal when the
 * key store cannot be asked (close 1013: retry later, not "invalid").
 */
export async function creditConnection(
  credentials: Credentials | null,
  deps: Pick<RealtimeGatewayDeps, 'authenticateApiKey' | 'redeemClientSecret'>,
  logger: Logger,
): Promise<Credited | { refused: 'dependency_unavailable' } | null> {
  if (!credentials) return null;
  try {
    if (credentials.kind === 'api_key') return { principal: await deps.authenticateApiKey(credentials.secret), secretSessionId: null };
    const redeemed = await deps.redeemClientSecret(credentials.secret);
    return { principal: redeemed.principal, secretSessionId: redeemed.sessionId };
  } catch (err) {
    if (err instanceof ServiceUnavailableError) {
      logger.warn({ dependency: err.dependency }, 'realtime credentials could not be checked; session refused');
      return { refused: 'dependency_unavailable' };
    }
    return null;
  }
}
