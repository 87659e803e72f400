/** Tokens for objects only the composition root knows (the core's ports have theirs in @svc/core). */
export const SERVER_TOKENS = {
  DataSource: Symbol.for('svc.server.DataSource'),
  Metrics: Symbol.for('svc.server.Metrics'),
  ManageApiKeys: Symbol.for('svc.server.ManageApiKeys'),
  /** `(sampleRate?) => SynthesizeSpeech`: speech at a session's output rate (realtime replies). */
  SpeechAtRate: Symbol.for('svc.server.SpeechAtRate'),
  /** The voices use cases (register, list, get, delete) for the REST routes. */
  VoiceUseCases: Symbol.for('svc.server.VoiceUseCases'),
  /** The video use cases (create, stream, get, content, list, delete, sweep) for the REST routes. */
  VideoUseCases: Symbol.for('svc.server.VideoUseCases'),
  /** The realtime gateway's collaborators: authentication, client-secret redemption, session factory. */
  RealtimeGatewayDeps: Symbol.for('svc.server.RealtimeGatewayDeps'),
  /**
   * `(context) => RealtimeSessionEngine`: one realtime session, whichever door it came through (the
   * WebSocket gateway, a WebRTC call): the same engine, services, caps and settings.
   */
  RealtimeSessionFactory: Symbol.for('svc.server.RealtimeSessionFactory'),
  /** The WebRTC calls (POST /v1/realtime/calls): WebRtcCallService, or null when SVC_WEBRTC_ENABLED=false. */
  RealtimeCalls: Symbol.for('svc.server.RealtimeCalls'),
  /** The Redis all processes share (SVC_REDIS_URL), or none: see runtime/shared-redis.ts. */
  SharedRedis: Symbol.for('svc.server.SharedRedis'),
  /** The recognizer SVC_ASR_ENGINE chose, with its name and status line, or null (speech-recognition.ts). */
  SelectedRecognizer: Symbol.for('svc.server.SelectedRecognizer'),
  /** What the realtime capacity admission reads: CPU per speaking session, recognizer backlog, event-loop lag (runtime/server-load-monitor.ts). */
  ServerLoadMonitor: Symbol.for('svc.server.ServerLoadMonitor'),
  /** POST /v1/audio/transcriptions' use case (composition/transcription.ts). */
  TranscribeAudio: Symbol.for('svc.server.TranscribeAudio'),
} as const;
