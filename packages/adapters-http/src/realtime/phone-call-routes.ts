import { z } from 'zod';
import type { PhoneCallControl } from '@svc/core';
import type { RouteModule } from '../app-state.js';
import { readJsonBody } from '../body/json-body.js';
import type { RouteTable } from '../routing/route-table.js';
import { parseRequest } from '../validation/parse-request.js';

/** accept: the session configuration, as session.update's `session` (checked the same way); `type` is `realtime`. */
const acceptSchema = z.looseObject({
  type: z.literal('realtime').optional().describe('Always realtime (OpenAI requires it; optional here)'),
});

/** reject: the SIP status the caller gets (OpenAI's default 603 Decline). */
const rejectSchema = z.strictObject({
  status_code: z.number().int().min(300).max(699).optional().describe('SIP status to the caller, 300-699; default 603 (Decline)'),
});

/** refer: where the caller's side is sent, as the Refer-To header names it. */
const referSchema = z.strictObject({
  target_uri: z
    .string()
    .max(512)
    .regex(/^(sips?|tel):[^\s<>"]+$/i, 'must be a sip:, sips: or tel: URI without spaces, <, > or quotes')
    .describe('The Refer-To URI, e.g. tel:+14155550123 or sip:agent@pbx.example.com'),
});

const callIdParameter = {
  name: 'call_id',
  in: 'path' as const,
  required: true,
  description: 'The call id of the realtime.call.incoming webhook (rtc_…)',
  schema: z.string(),
};

const DEFAULT_REJECT_STATUS = 603;

export interface PhoneCallRoutesDeps {
  calls: PhoneCallControl;
  jsonBodyLimit: number;
  /** Also route `/hangup` here (when no WebRTC route serves it and forwards phone calls' hang-ups). */
  withHangup: boolean;
}

/**
 * OpenAI's SIP call control (docs/sip.md): the application answers a ringing phone call with
 * `POST /v1/realtime/calls/{call_id}/accept` (the session configuration), `/reject` (a SIP status),
 * `/refer` (a transfer) and `/hangup`. API keys only; a key finds only its own calls (404
 * call_not_found otherwise); every answer is `200 {}`.
 */
export function phoneCallRoutes(deps: PhoneCallRoutesDeps): RouteModule {
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'post',
        path: '/v1/realtime/calls/{call_id}/accept',
        summary: 'Accept a ringing phone call (SIP) with a session configuration',
        tags: ['realtime'],
        parameters: [callIdParameter],
        requestBody: { 'application/json': acceptSchema },
        responses: {
          '200': { description: 'The call is answered; its session runs with this configuration' },
          '400': { description: 'An invalid session configuration (as session.update would refuse it)' },
          '404': { description: 'No such call under this API key (call_not_found)' },
          '409': { description: 'The call was already accepted or rejected (call_not_ringing)' },
          '429': { description: 'Realtime session caps reached (concurrency_limit_exceeded): the caller hears 503' },
        },
        handlers: [
          async (ctx) => {
            const raw = await readJsonBody(ctx, deps.jsonBodyLimit, { allowEmpty: true });
            const session = raw === undefined ? {} : (parseRequest(acceptSchema, raw) as Record<string, unknown>);
            await deps.calls.accept(ctx.params.call_id!, ctx.state.principal, session);
            ctx.body = {};
          },
        ],
      });
      routes.add({
        method: 'post',
        path: '/v1/realtime/calls/{call_id}/reject',
        summary: 'Reject a ringing phone call (SIP) with a status code',
        tags: ['realtime'],
        parameters: [callIdParameter],
        requestBody: { 'application/json': rejectSchema },
        responses: {
          '200': { description: 'The caller got the status' },
          '400': { description: 'status_code not an integer in 300-699' },
          '404': { description: 'No such call under this API key (call_not_found)' },
          '409': { description: 'The call was already accepted or rejected (call_not_ringing)' },
        },
        handlers: [
          async (ctx) => {
            const raw = await readJsonBody(ctx, deps.jsonBodyLimit, { allowEmpty: true });
            const body = raw === undefined ? {} : parseRequest(rejectSchema, raw);
            await deps.calls.reject(ctx.params.call_id!, ctx.state.principal, body.status_code ?? DEFAULT_REJECT_STATUS);
            ctx.body = {};
          },
        ],
      });
      routes.add({
        method: 'post',
        path: '/v1/realtime/calls/{call_id}/refer',
        summary: 'Transfer an answered phone call (SIP REFER to the caller)',
        tags: ['realtime'],
        parameters: [callIdParameter],
        requestBody: { 'application/json': referSchema },
        responses: {
          '200': { description: "The caller's side took the REFER (202); the service hangs up when the transfer succeeds" },
          '400': {
            description: 'target_uri missing or not a sip:/sips:/tel: URI, the call not answered yet, or the caller refused the REFER',
          },
          '404': { description: 'No such call under this API key (call_not_found)' },
          '503': { description: "The caller's side did not answer the REFER" },
        },
        handlers: [
          async (ctx) => {
            const body = parseRequest(referSchema, await readJsonBody(ctx, deps.jsonBodyLimit));
            await deps.calls.refer(ctx.params.call_id!, ctx.state.principal, body.target_uri);
            ctx.body = {};
          },
        ],
      });
      if (deps.withHangup) {
        routes.add({
          method: 'post',
          path: '/v1/realtime/calls/{call_id}/hangup',
          summary: 'End a phone call (SIP BYE)',
          tags: ['realtime'],
          parameters: [callIdParameter],
          responses: {
            '200': { description: 'The call was ended' },
            '404': { description: 'No such call under this API key (call_not_found)' },
          },
          handlers: [
            async (ctx) => {
              await deps.calls.hangup(ctx.params.call_id!, ctx.state.principal);
              ctx.body = {};
            },
          ],
        });
      }
    },
  };
}
