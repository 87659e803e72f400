export { WebRtcCallService, type CallSessionContext, type WebRtcCallDeps, type WebRtcCallOptions } from './webrtc-call-service.js';
export { PeerCall, EVENTS_CHANNEL, type CallIceOptions, type CallSessionHandle, type PeerCallOptions } from './peer-call.js';
export { RtpAudioTrack, RTP_SAMPLE_RATE, FRAME_MS, type RtpPacketSink } from './rtp-audio-track.js';
export { checkOffer } from './offer-checks.js';
export type { CallEnding } from './call-endings.js';
