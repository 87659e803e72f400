import { z } from 'zod';
import {
  applySessionUpdate,
  checkAvatarBeforeCall,
  checkSessionVoice,
  CLIENT_SECRET_PREFIX,
  inboundBudgetLimits,
  LargeBodyLimit,
  REALTIME_MODEL,
  REALTIME_TOKENS,
  SHARED_TOKENS,
  type IdGenerator,
  type Logger,
  type ManageApiKeys,
  type OpusCodec,
  type RealtimeSessionRegistry,
  type RedeemClientSecret,
} from '@svc/core';
import { WebRtcCallService } from '@svc/adapters-webrtc';
import { largeBodiesPerKey, realtimeCallRoutes, type CallCaller } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule, type ModuleRoutes } from './module.js';
import { rethrowUnavailable } from '../runtime/rethrow-unavailable.js';
import { warmUp, warmUpOnThisProcess } from '../runtime/warm-up.js';
import type { RealtimeSessionFactory } from './realtime.js';
import type { LiveAvatarSupport } from './live-avatar.js';

/** `50000-50100`: the UDP ports calls bind (a firewall rule); empty: any. */
const portRange = z
  .string()
  .default('')
  .transform((value, ctx) => {
    if (value.trim() === '') return undefined;
    const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(value);
    const [lo, hi] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
    if (!m || lo < 1024 || hi > 65535 || lo >= hi) {
      ctx.addIssue({ code: 'custom', message: 'must be LOW-HIGH with 1024 <= LOW < HIGH <= 65535, e.g. 50000-50100' });
      return z.NEVER;
    }
    return [lo, hi] as [number, number];
  });

/**
 * Realtime sessions over WebRTC (docs/realtime.md, "WebRTC calls"): `POST /v1/realtime/calls`
 * answers the client's SDP offer, the session runs on the same engine, caps and registry as the
 * WebSocket (RealtimeSessionFactory, REALTIME_TOKENS.Admission), its audio as Opus RTP. The
 * Opus codec reaches the WebRTC adapter through the core's OpusCodec port.
 */
export const realtimeWebrtcModule = defineModule({
  name: 'realtime-webrtc',
  docs: 'docs/realtime.md',
  settings: {
    SVC_WEBRTC_ENABLED: setting.bool(true),
    SVC_WEBRTC_MAX_OFFER_BYTES: setting.int(64 * 1024, 4 * 1024, 1024 * 1024),
    // an inline 10 MB photo for session.avatar, as base64 in JSON
    SVC_WEBRTC_MAX_SESSION_BYTES: setting.int(14 * 1024 * 1024, 4 * 1024, 64 * 1024 * 1024),
    SVC_WEBRTC_CONNECT_TIMEOUT_MS: setting.int(10_000, 1_000, 120_000),
    SVC_WEBRTC_PEER_TIMEOUT_MS: setting.int(15_000, 2_000, 600_000),
    SVC_WEBRTC_PORT_RANGE: portRange,
    SVC_WEBRTC_HOST_ADDRESSES: setting.list(),
    SVC_WEBRTC_IPV6: setting.bool(false),
    // The WebRTC stack (werift; its memory: docs/deployment.md) loads with the first call by default: most servers take none.
    // background / blocking also run werift's cold path once (a loopback call): the first call then connects at once.
    SVC_WEBRTC_WARM_UP: setting.warmUp('lazy'),
  },
  bind(provide, config): void {
    const s = config.settings;
    provide(
      SERVER_TOKENS.RealtimeCalls,
      async (get) => {
        if (!s.SVC_WEBRTC_ENABLED) return null;
        const ids = await get(SHARED_TOKENS.IdGenerator);
        const createSession = await get(SERVER_TOKENS.RealtimeSessionFactory);
        const liveAvatar = await get(SERVER_TOKENS.LiveAvatar);
        const voices = await get(REALTIME_TOKENS.VoiceDirectory);
        const logger = (await get(SHARED_TOKENS.Logger)).child({ module: 'webrtc' });
        const calls = new WebRtcCallService(
          {
            admission: await get(REALTIME_TOKENS.Admission),
            // A call is a session whose model defaults as `?model=svc-realtime` would.
            createSession: (ctx) => createSession({ ...ctx, urlModel: REALTIME_MODEL }),
            checkSession: (session) => void applySessionUpdate(session, null, REALTIME_MODEL),
            // an unknown voice is refused before the answer too, as a WebSocket's session.update refuses it
            checkVoice: async (session, principal) =>
              checkSessionVoice(applySessionUpdate(session, null, REALTIME_MODEL).voiceToValidate, voices, principal),
            // no face without the live avatar or a video track; a photo's URL within the SSRF rules (docs/live-avatar.md)
            checkAvatar: (session, hasVideo) =>
              checkAvatarBeforeCall(applySessionUpdate(session, null, REALTIME_MODEL).config.avatar, liveAvatar?.services, hasVideo),
            opus: await get(REALTIME_TOKENS.OpusCodec),
            newCallId: () => ids.id('rtc_'),
            logger,
          },
          {
            ice: { portRange: s.SVC_WEBRTC_PORT_RANGE, additionalHostAddresses: s.SVC_WEBRTC_HOST_ADDRESSES, useIpv6: s.SVC_WEBRTC_IPV6 },
            connectTimeoutMs: s.SVC_WEBRTC_CONNECT_TIMEOUT_MS,
            peerTimeoutMs: s.SVC_WEBRTC_PEER_TIMEOUT_MS,
            audioLeadMs: s.SVC_REALTIME_AUDIO_LEAD_MS,
            maxBufferedBytes: s.SVC_REALTIME_MAX_BUFFERED_BYTES,
            maxPendingEvents: 256,
            ...(liveAvatar ? { avatarVideo: { encoder: liveAvatar.encoder, leadMs: liveAvatar.leadMs } } : {}),
            // The WebSocket's budget per connection, for the data channel's messages.
            inbound: inboundBudgetLimits(
              s.SVC_REALTIME_INBOUND_EVENTS_PER_SEC,
              s.SVC_REALTIME_INBOUND_BYTES_PER_SEC,
              s.SVC_REALTIME_MAX_FRAME_BYTES,
            ),
          },
        );
        await warmUp(warmUpOnThisProcess(config, s.SVC_WEBRTC_WARM_UP), 'WebRTC (werift)', () => calls.warmUp(), logger);
        return calls;
      },
      { close: (calls) => calls?.close() },
    );
  },
  routes({ config, get }): ModuleRoutes {
    const calls = get(SERVER_TOKENS.RealtimeCalls);
    if (!calls) return {};
    const keys = get(SERVER_TOKENS.ManageApiKeys);
    const redeem = get(REALTIME_TOKENS.RedeemClientSecret);
    // Browsers send the ephemeral key as the Bearer (the WebRTC flow has no subprotocol); servers the API key.
    const authenticateCaller = async (secret: string | null): Promise<CallCaller> => {
      if (secret?.startsWith(CLIENT_SECRET_PREFIX)) {
        const redeemed = await redeem.execute(secret).catch(rethrowUnavailable);
        return { principal: redeemed.principal, secretSessionId: redeemed.sessionId };
      }
      return { principal: await keys.authenticate(secret).catch(rethrowUnavailable), secretSessionId: null };
    };
    return {
      public: [
        realtimeCallRoutes({
          calls,
          authenticateCaller,
          maxOfferBytes: config.settings.SVC_WEBRTC_MAX_OFFER_BYTES,
          maxSessionBytes: config.settings.SVC_WEBRTC_MAX_SESSION_BYTES,
          phoneCalls: get(SERVER_TOKENS.PhoneCalls),
          // Its own count (the API routes keep theirs): a key holds at most this many large offers too.
          largeBodies: largeBodiesPerKey(new LargeBodyLimit(config.settings.SVC_MAX_LARGE_BODIES_PER_KEY)),
        }),
      ],
    };
  },
});
