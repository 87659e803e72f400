import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';
import { z } from 'zod';
import {
  InvalidJsonError,
  InvalidRequestError,
  parseCallerJson,
  PayloadTooLargeError,
  type PhoneCallControl,
  type Principal,
  type RealtimeCalls,
} from '@svc/core';
import type { AppState, RouteModule } from '../app-state.js';
import { bearerToken } from '../auth/auth-middleware.js';
import { isMultipart, readMultipartForm } from '../multipart/index.js';
import type { RouteTable } from '../routing/route-table.js';

/** Who places or ends a call: an API key, or an ephemeral key (with the session id it announced). */
export interface CallCaller {
  principal: Principal;
  secretSessionId: string | null;
}

export interface RealtimeCallRoutesDeps {
  calls: RealtimeCalls;
  /**
   * The Bearer secret as a caller: an API key (server side) or an ephemeral `svc-eph-` key (a
   * browser). Throws InvalidApiKeyError (401) for a missing, invalid or expired key, and
   * ServiceUnavailableError (503) when the key store does not answer.
   */
  authenticateCaller(secret: string | null): Promise<CallCaller>;
  /** Largest accepted offer (the SDP body, or the multipart `sdp` part). */
  maxOfferBytes: number;
  /**
   * Largest multipart `session` part (default: maxOfferBytes). It may carry an inline photo for
   * `session.avatar` (a data channel message cannot: browsers cap those at 256 KB).
   */
  maxSessionBytes?: number;
  /** Phone calls (SIP): their ids hang up there (`/hangup` serves both kinds of call). */
  phoneCalls?: PhoneCallControl;
  /**
   * The per-key cap of requests with large bodies in progress (largeBodiesPerKey), run once the
   * caller is known and before the offer is read: a multipart offer may carry a 14 MB session.
   */
  largeBodies?: Middleware<AppState>;
}

/**
 * OpenAI's WebRTC call flow: `POST /v1/realtime/calls` takes the complete SDP offer
 * (`Content-Type: application/sdp`, or multipart/form-data with `sdp` and an optional `session`)
 * and answers `201` with the SDP answer (`application/sdp`) and `Location:
 * /v1/realtime/calls/{call_id}`; `POST /v1/realtime/calls/{call_id}/hangup` ends the call. Added
 * to the public table because the calls authenticate themselves (`authenticatesItself`): browsers
 * send an ephemeral key in the Bearer header, which the API-key middleware would refuse.
 */
export function realtimeCallRoutes(deps: RealtimeCallRoutesDeps): RouteModule {
  return {
    register(routes: RouteTable) {
      routes.add({
        method: 'post',
        path: '/v1/realtime/calls',
        summary: 'Start a realtime session over WebRTC: post the SDP offer, get the SDP answer',
        description: 'Bearer: an API key (server side) or an ephemeral key from /v1/realtime/client_secrets (a browser; single use).',
        tags: ['realtime'],
        authenticatesItself: true,
        requestBody: {
          'application/sdp': z
            .string()
            .describe(
              'The complete SDP offer (no trickle ICE): an audio m-line (Opus) and the data channel the client opened as oai-events',
            ),
          'multipart/form-data': z.object({
            sdp: z.string().describe('The SDP offer'),
            session: z
              .string()
              .optional()
              .describe('JSON of a session configuration (the session object of session.update), applied before session.created'),
          }),
        },
        responses: {
          '201': {
            description: 'The SDP answer',
            content: { 'application/sdp': null },
            headers: { Location: '/v1/realtime/calls/{call_id}: the call id (rtc_…) for the hang-up' },
          },
          '400': { description: 'Not an SDP offer (invalid_offer), or an invalid session' },
          '409': { description: 'The ephemeral key already has a live session (session_already_active)' },
          '413': { description: 'Offer larger than SVC_WEBRTC_MAX_OFFER_BYTES' },
          '429': { description: 'Realtime session caps reached (concurrency_limit_exceeded; Retry-After)' },
        },
        handlers: [
          async (ctx, next) => {
            const caller = await callerOf(ctx, deps);
            callers.set(ctx, caller);
            ctx.state.principal = caller.principal;
            await next();
          },
          ...(deps.largeBodies ? [deps.largeBodies] : []),
          async (ctx) => {
            const caller = callers.get(ctx)!;
            const { sdp, session } = await readOffer(ctx, deps.maxOfferBytes, deps.maxSessionBytes ?? deps.maxOfferBytes);
            const answer = await deps.calls.create({ ...caller, offerSdp: sdp, session });
            ctx.status = 201;
            ctx.set('Location', `/v1/realtime/calls/${answer.callId}`);
            ctx.type = 'application/sdp';
            ctx.body = answer.answerSdp;
          },
        ],
      });
      routes.add({
        method: 'post',
        path: '/v1/realtime/calls/{call_id}/hangup',
        summary: 'End a realtime call (WebRTC, or a phone call over SIP)',
        tags: ['realtime'],
        authenticatesItself: true,
        parameters: [
          { name: 'call_id', in: 'path', required: true, description: 'The call id of the Location header (rtc_…)', schema: z.string() },
        ],
        responses: {
          '200': { description: 'The call was ended' },
          '404': { description: 'No such call under this API key (call_not_found)' },
        },
        handlers: [
          async (ctx) => {
            const caller = await callerOf(ctx, deps);
            const callId = ctx.params.call_id!;
            // An ephemeral key reaches only the session it was minted for, never a phone call of its
            // API key: for it a phone call's id is as unknown as any other (404 call_not_found).
            const ephemeral = caller.secretSessionId !== null;
            if (!ephemeral && deps.phoneCalls?.has(callId)) await deps.phoneCalls.hangup(callId, caller.principal);
            else await deps.calls.hangup(callId, caller.principal, caller.secretSessionId);
            ctx.status = 200;
            ctx.body = {};
          },
        ],
      });
    },
  };
}

/** The caller of a request, from its authentication to its handler. */
const callers = new WeakMap<Context, CallCaller>();

async function callerOf(ctx: Context & { state: AppState }, deps: RealtimeCallRoutesDeps): Promise<CallCaller> {
  const caller = await deps.authenticateCaller(bearerToken(ctx.get('authorization')));
  ctx.state.log = ctx.state.log.child({ apiKeyId: caller.principal.apiKeyId });
  return caller;
}

/** The offer as SDP text and the optional session (multipart), read within the byte limit. */
async function readOffer(ctx: Context, limitBytes: number, sessionLimitBytes: number): Promise<{ sdp: string; session: unknown }> {
  if (isMultipart(ctx)) {
    const partLimit = Math.max(limitBytes, sessionLimitBytes);
    const form = await readMultipartForm(ctx, {
      allowed: ['sdp', 'session'],
      maxFileBytes: partLimit,
      maxFieldBytes: partLimit,
      maxBodyBytes: limitBytes + sessionLimitBytes,
    });
    const sdp = form.fields.sdp ?? (form.files.sdp ? Buffer.from(form.files.sdp.bytes).toString('utf8') : undefined);
    if (sdp === undefined) throw new InvalidRequestError("Missing required parameter: 'sdp'.", 'sdp');
    if (Buffer.byteLength(sdp) > limitBytes) throw offerTooLarge(limitBytes);
    const rawSession = form.fields.session ?? (form.files.session ? Buffer.from(form.files.session.bytes).toString('utf8') : undefined);
    return { sdp, session: rawSession === undefined ? null : parseSession(rawSession) };
  }
  const type = ctx.request.type;
  if (type !== 'application/sdp') {
    throw new InvalidRequestError(
      `Expected Content-Type application/sdp (or multipart/form-data with sdp and session), got '${type || 'none'}'.`,
    );
  }
  const declared = Number(ctx.get('content-length') || NaN);
  if (Number.isFinite(declared) && declared > limitBytes) throw offerTooLarge(limitBytes);
  try {
    return { sdp: await getRawBody(ctx.req, { limit: limitBytes, encoding: 'utf8' }), session: null };
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw offerTooLarge(limitBytes);
    throw err;
  }
}

function parseSession(text: string): unknown {
  try {
    return parseCallerJson(text);
  } catch (err) {
    throw new InvalidJsonError(`The 'session' part is not valid JSON: ${(err as Error).message}`, 'session');
  }
}

function offerTooLarge(limitBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The SDP offer exceeds the ${Math.round(limitBytes / 1024)} KiB limit.`);
}
