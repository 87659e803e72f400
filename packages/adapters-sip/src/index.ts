export { SipServer, type SipServerDeps, type SipServerOptions } from './sip-server.js';
export { SipCall, type SipCallSession, type SipCallEnding } from './sip-call.js';
export { parseSipMessage, SipParseError, DEFAULT_PARSE_LIMITS, type SipMessage, type SipParseLimits } from './sip-message.js';
export { parseAudioOffer, buildAudioAnswer, SdpError, type AudioOffer } from './sdp.js';
export { DigestAuth, type DigestCredentials } from './digest-auth.js';
export { JitterBuffer } from './jitter-buffer.js';
export { SipStreamFramer } from './sip-stream-framer.js';
export { G711ReplyTrack } from './g711-reply-track.js';
export { parseRtp, serializeRtp, type RtpPacket } from './rtp-packet.js';
