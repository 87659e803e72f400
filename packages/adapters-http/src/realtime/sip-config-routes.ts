import { z } from 'zod';
import { unixSeconds, type ManageSipConfig, type SipConfigResult, type SipKeyConfig } from '@svc/core';
import type { RouteModule } from '../app-state.js';
import { readJsonBody } from '../body/json-body.js';
import type { RouteTable } from '../routing/route-table.js';
import { parseRequest } from '../validation/parse-request.js';

const sipConfigRequestSchema = z.strictObject({
  username: z
    .string()
    .regex(/^[A-Za-z0-9._~+-]{1,64}$/, 'must be 1 to 64 letters, digits or . _ ~ + -')
    .describe("The digest user name phones and PBXs call with; unique across keys: it selects this key's configuration"),
  password: z
    .string()
    .min(12, 'must be at least 12 characters')
    .max(256, 'must be at most 256 characters')
    .describe('The digest password; only MD5(username:realm:password) is stored, never returned'),
  webhook_url: z
    .string()
    .max(2048)
    .nullable()
    .optional()
    .describe('Where realtime.call.incoming is posted (http or https, a public address); null or absent: calls are answered at once'),
  session: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe("session.update's session for calls answered at once (no webhook_url)"),
});

const sipConfigResponseSchema = z.object({
  object: z.literal('realtime.sip_config'),
  username: z.string(),
  realm: z.string().describe('The digest realm phones are challenged with'),
  webhook_url: z.string().nullable(),
  webhook_secret: z.string().optional().describe('whsec_...: only when just created or rotated; never shown again'),
  session: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.number().int().describe('Unix seconds'),
  updated_at: z.number().int().describe('Unix seconds'),
});

const PATH = '/v1/realtime/sip/config';

export interface SipConfigRoutesDeps {
  manage: ManageSipConfig;
  /** The digest realm (shown so a PBX can be configured with it). */
  realm: string;
  jsonBodyLimit: number;
}

/**
 * The calling key's own SIP settings (docs/sip.md, "SIP credentials per API key"): a digest user
 * that selects this key when a phone calls, and the webhook its calls are announced to. API keys
 * only (an ephemeral key is refused by the authenticated table); secrets are never read back: the
 * password is not stored, and the webhook secret is shown when created or rotated.
 */
export function sipConfigRoutes(deps: SipConfigRoutesDeps): RouteModule {
  const view = (config: SipKeyConfig, result?: SipConfigResult) => ({
    object: 'realtime.sip_config' as const,
    username: config.username,
    realm: deps.realm,
    webhook_url: config.webhookUrl,
    ...(result?.newWebhookSecret ? { webhook_secret: result.newWebhookSecret } : {}),
    session: config.session,
    created_at: unixSeconds(config.createdAt),
    updated_at: unixSeconds(config.updatedAt),
  });
  const json = { 'application/json': sipConfigResponseSchema };
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'post',
        path: PATH,
        summary: "Create or replace this key's SIP credentials and call webhook",
        tags: ['realtime'],
        requestBody: { 'application/json': sipConfigRequestSchema },
        responses: {
          '200': { description: 'Stored; webhook_secret is included when a webhook secret was just made', content: json },
          '400': { description: 'An invalid field, a user name another key holds, a webhook URL that is not public' },
        },
        handlers: [
          async (ctx) => {
            const body = parseRequest(sipConfigRequestSchema, await readJsonBody(ctx, deps.jsonBodyLimit));
            const result = await deps.manage.set(ctx.state.principal, {
              username: body.username,
              password: body.password,
              webhookUrl: body.webhook_url ?? null,
              session: (body.session as Record<string, unknown> | null | undefined) ?? null,
            });
            ctx.body = view(result.config, result);
          },
        ],
      });
      routes.add({
        method: 'get',
        path: PATH,
        summary: "This key's SIP configuration (never its secrets)",
        tags: ['realtime'],
        responses: {
          '200': { description: 'The configuration, without password or webhook secret', content: json },
          '404': { description: 'This key has none (not_found)' },
        },
        handlers: [
          async (ctx) => {
            ctx.body = view(await deps.manage.get(ctx.state.principal));
          },
        ],
      });
      routes.add({
        method: 'delete',
        path: PATH,
        summary: "Delete this key's SIP configuration (its phones are refused from then on)",
        tags: ['realtime'],
        responses: {
          '200': { description: '{"object":"realtime.sip_config","deleted":true}' },
          '404': { description: 'This key has none (not_found)' },
        },
        handlers: [
          async (ctx) => {
            await deps.manage.delete(ctx.state.principal);
            ctx.body = { object: 'realtime.sip_config', deleted: true };
          },
        ],
      });
      routes.add({
        method: 'post',
        path: `${PATH}/rotate_webhook_secret`,
        summary: "A new webhook signing secret for this key's calls (the old one stops at once)",
        tags: ['realtime'],
        responses: {
          '200': { description: 'The configuration with the new webhook_secret (shown this once)', content: json },
          '400': { description: 'No webhook_url is set' },
          '404': { description: 'This key has no SIP configuration (not_found)' },
        },
        handlers: [
          async (ctx) => {
            const result = await deps.manage.rotateWebhookSecret(ctx.state.principal);
            ctx.body = view(result.config, result);
          },
        ],
      });
    },
  };
}
