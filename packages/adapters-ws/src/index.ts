export { attachRealtimeGateway } from './realtime-gateway.js';
export type {
  RealtimeGateway,
  RealtimeGatewayDeps,
  RealtimeGatewayOptions,
  RealtimeSessionHandle,
  SessionContext,
} from './gateway-types.js';
export {
  DEFAULT_INBOUND_BYTES_PER_SECOND,
  DEFAULT_INBOUND_EVENTS_PER_SECOND,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_MAX_PENDING_EVENTS,
} from './gateway-types.js';
export { CLIENT_SECRET_PROTOCOL_PREFIX, REALTIME_PROTOCOL } from './credentials.js';
export { CLOSE_CODES, type GatewayEnding } from './close-codes.js';
