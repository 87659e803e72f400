// The Wyoming protocol (Home Assistant's voice services) as a transport beside HTTP and WebSocket:
// the same core use cases (speech, transcription, voices), reached over a TCP port.
export { WyomingServer, type WyomingListenOptions } from './server/wyoming-server.js';
export { ANONYMOUS_PRINCIPAL, MAX_LISTED_REGISTERED_VOICES } from './server/wyoming-connection.js';
export type {
  WyomingServices,
  WyomingLimits,
  WyomingIdentity,
  RegisteredVoices,
  RegisteredVoiceEntry,
  WyomingObserver,
  WyomingRequestRecord,
} from './ports.js';
export { PROTOCOL_VERSION, type WyomingEvent, type FramingLimits } from './framing/wyoming-event.js';
export { EventParser } from './framing/event-parser.js';
export { encodeEvent } from './framing/event-encoder.js';
export { displayLanguage } from './protocol/info.js';
