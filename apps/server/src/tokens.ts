import type { DataSource } from 'typeorm';
import { token, type LargeBodyLimit, type ManageApiKeys, type SipConfigRepository, type TranscribeAudio } from '@svc/core';
import type { ServiceMetrics } from '@svc/adapters-http';
import type { RealtimeGatewayDeps } from '@svc/adapters-ws';
import type { WebRtcCalls } from '@svc/adapters-webrtc';
import type { PhoneCallDirectory } from '@svc/adapters-sip';
import type { LiveAvatarSupport } from './composition/live-avatar.js';
import type { RealtimeSessionFactory } from './composition/realtime.js';
import type { SpeechAt } from './composition/speech.js';
import type { SelectedRecognizer } from './composition/speech-recognition.js';
import type { VideoUseCases } from './composition/video.js';
import type { VoiceUseCases } from './composition/voices.js';
import type { ServerLoadMonitor } from './runtime/server-load-monitor.js';
import type { SharedRedis } from './runtime/shared-redis.js';

/**
 * Tokens for objects only the composition root knows (the core's ports have theirs in @svc/core),
 * typed like the core's (core/src/shared/token.ts): `provide` and `get` infer from them.
 */
export const SERVER_TOKENS = {
  DataSource: token<DataSource>('svc.server.DataSource'),
  Metrics: token<ServiceMetrics>('svc.server.Metrics'),
  ManageApiKeys: token<ManageApiKeys>('svc.server.ManageApiKeys'),
  /**
   * Each key's large transfers in progress (SVC_MAX_LARGE_BODIES_PER_KEY): the API's request bodies
   * over 1 MiB and the media URLs downloaded for the key count in this one limit.
   */
  LargeBodies: token<LargeBodyLimit>('svc.server.LargeBodies'),
  /** `(sampleRate?) => SynthesizeSpeech`: speech at a session's output rate (realtime replies). */
  SpeechAtRate: token<SpeechAt>('svc.server.SpeechAtRate'),
  /** The voices use cases (register, list, get, delete) for the REST routes. */
  VoiceUseCases: token<VoiceUseCases>('svc.server.VoiceUseCases'),
  /** The video use cases (create, stream, get, content, list, delete, sweep) for the REST routes. */
  VideoUseCases: token<VideoUseCases>('svc.server.VideoUseCases'),
  /** The realtime gateway's collaborators: authentication, client-secret redemption, session factory. */
  RealtimeGatewayDeps: token<RealtimeGatewayDeps>('svc.server.RealtimeGatewayDeps'),
  /**
   * `(context) => RealtimeSessionEngine`: one realtime session, whichever door it came through (the
   * WebSocket gateway, a WebRTC call): the same engine, services, caps and settings.
   */
  RealtimeSessionFactory: token<RealtimeSessionFactory>('svc.server.RealtimeSessionFactory'),
  /** The WebRTC calls (POST /v1/realtime/calls; the core's RealtimeCalls port and the calls' diagnostics), or null when SVC_WEBRTC_ENABLED=false. */
  RealtimeCalls: token<WebRtcCalls | null>('svc.server.RealtimeCalls'),
  /** Phone calls (SIP) by id: accept/reject/refer/hangup and the WebSocket's `?call_id=` join (empty unless SVC_SIP_PORT is set). */
  PhoneCalls: token<PhoneCallDirectory>('svc.server.PhoneCalls'),
  /** Each API key's own SIP credentials and call webhook (POST /v1/realtime/sip/config). */
  SipConfigs: token<SipConfigRepository>('svc.server.SipConfigs'),
  /** The live avatar of WebRTC calls (composition/live-avatar.ts): LiveAvatarSupport, or null when disabled. */
  LiveAvatar: token<LiveAvatarSupport | null>('svc.server.LiveAvatar'),
  /** The Redis all processes share (SVC_REDIS_URL), or none: see runtime/shared-redis.ts. */
  SharedRedis: token<SharedRedis>('svc.server.SharedRedis'),
  /** The recognizer SVC_ASR_ENGINE chose, with its name and status line, or null (speech-recognition.ts). */
  SelectedRecognizer: token<SelectedRecognizer | null>('svc.server.SelectedRecognizer'),
  /** What the realtime capacity admission reads: CPU per speaking session, recognizer backlog, event-loop lag (runtime/server-load-monitor.ts). */
  ServerLoadMonitor: token<ServerLoadMonitor>('svc.server.ServerLoadMonitor'),
  /** POST /v1/audio/transcriptions' use case (composition/transcription.ts). */
  TranscribeAudio: token<TranscribeAudio>('svc.server.TranscribeAudio'),
} as const;
