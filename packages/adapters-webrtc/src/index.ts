export {
  MAX_UNCONNECTED_CALLS_PER_KEY,
  WebRtcCallService,
  type CallSessionContext,
  type WebRtcCallDeps,
  type WebRtcCallOptions,
  type WebRtcCalls,
} from './webrtc-call-service.js';
// Types only from the modules that import werift: the service loads them with its first call
// (WebRtcCallService.warm), so importing this package costs nothing at start.
export type { PeerCall, CallIceOptions, CallSessionHandle, PeerCallOptions } from './peer-call.js';
export type { RtpAudioTrack, RtpPacketSink } from './rtp-audio-track.js';
export { checkOffer } from './offer-checks.js';
export type { CallEnding } from './call-endings.js';
export { packetizeH264 } from './h264-packetizer.js';
export type { CallVideoStats, SpurtFirstFrame } from './call-video-figures.js';
