import type { Middleware } from 'koa';
import type { Principal } from '@svc/core';
import { InvalidApiKeyError } from '@svc/core';
import type { AppState } from '../app-state.js';

export type Authenticate = (secret: string | null) => Promise<Principal>;

/** Reads `Authorization: Bearer <key>` and sets ctx.state.principal, or fails with 401. */
export function authMiddleware(authenticate: Authenticate): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.principal = await authenticate(bearerToken(ctx.get('authorization')));
    ctx.state.log = ctx.state.log.child({ apiKeyId: ctx.state.principal.apiKeyId });
    await next();
  };
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new InvalidApiKeyError('The Authorization header must be "Bearer <API_KEY>".');
  return match[1]!;
}
