import { z } from 'zod';
import type { ClientSecretResponse, Principal } from '@svc/core';
import type { Middleware } from 'koa';
import type { AppState, RouteModule } from '../app-state.js';
import { readJsonBody } from '../body/json-body.js';
import type { RouteTable } from '../routing/route-table.js';
import { parseRequest } from '../validation/parse-request.js';

export const clientSecretRequestSchema = z.strictObject({
  expires_after: z
    .strictObject({
      anchor: z.enum(['created_at']).optional().describe('Only created_at'),
      seconds: z.number().int().min(10).max(7200).optional().describe('Lifetime in seconds, 10..7200, default 600'),
    })
    .optional(),
  session: z.record(z.string(), z.unknown()).optional().describe('Ignored: sessions are configured over the WebSocket with session.update'),
});

export const clientSecretResponseSchema = z.object({
  object: z.literal('realtime.client_secret'),
  value: z.string().describe('Ephemeral key, prefix svc-eph-; use the subprotocol svc-client-secret.<value>'),
  expires_at: z.number().int().describe('Unix seconds'),
  session: z.object({ id: z.string(), object: z.literal('realtime.session') }),
});

export interface ClientSecretRoutesDeps {
  mint: { execute(principal: Principal, body: unknown): Promise<ClientSecretResponse> };
  jsonBodyLimit: number;
  /**
   * Per-key admission, before the body is read: each secret is a stored row that lives up to 2 h, and
   * without it one key minted 150 a second (3,000 rows in 19 s, the other keys' requests 10-20 times slower).
   */
  rateLimit?: Middleware<AppState>;
}

/** POST /v1/realtime/client_secrets: ephemeral keys for browser clients, bound to the calling key. */
export function clientSecretRoutes(deps: ClientSecretRoutesDeps): RouteModule {
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'post',
        path: '/v1/realtime/client_secrets',
        summary: 'Mint an ephemeral realtime client secret',
        tags: ['realtime'],
        requestBody: { 'application/json': clientSecretRequestSchema },
        responses: {
          '200': { description: 'Client secret', content: { 'application/json': clientSecretResponseSchema } },
          '400': { description: 'expires_after.seconds out of 10..7200, unknown fields' },
          '429': { description: "rate_limit_exceeded: the key's request rate (Retry-After)" },
        },
        handlers: [
          ...(deps.rateLimit ? [deps.rateLimit] : []),
          async (ctx) => {
            const raw = await readJsonBody(ctx, deps.jsonBodyLimit, { allowEmpty: true });
            const body = raw === undefined ? {} : parseRequest(clientSecretRequestSchema, raw);
            ctx.body = await deps.mint.execute(ctx.state.principal, body);
          },
        ],
      });
    },
  };
}
