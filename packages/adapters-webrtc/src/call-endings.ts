/**
 * Endings a call decides itself (the session's own are the core's SESSION_ENDINGS). A WebRTC client
 * has no close code: the session's last event, where there is one (`error`, `session.idle_timeout`,
 * `session.max_duration_reached`), goes out on the data channel, then the peer connection closes.
 * The mapping to the WebSocket's close codes is in docs/realtime.md ("How a call ends").
 */
export type CallEnding =
  'hangup' | 'ice_timeout' | 'peer_gone' | 'slow_reader' | 'inbound_rate_exceeded' | 'server_shutdown' | 'key_revoked' | 'internal_error';
