export {
  SipServer,
  type SipServerDeps,
  type SipServerOptions,
  type IncomingCall,
  type SipAccount,
  type SipAccounts,
} from './sip-server.js';
export { SipCall, type SipCallSession, type SipCallEnding } from './sip-call.js';
export { PhoneCallDirectory } from './phone-call-directory.js';
export { CallWebhook, signWebhook, webhookAddress, type CallWebhookOptions } from './call-webhook.js';
export { parseSipMessage, SipParseError, DEFAULT_PARSE_LIMITS, type SipMessage, type SipParseLimits } from './sip-message.js';
export { parseAudioOffer, buildAudioAnswer, SdpError, type AudioOffer } from './sdp.js';
export { DigestAuth, digestHa1, DIGEST_REALM, type DigestCredentials, type Ha1Lookup } from './digest-auth.js';
export { JitterBuffer } from './jitter-buffer.js';
export { SipStreamFramer } from './sip-stream-framer.js';
export { G711ReplyTrack } from './g711-reply-track.js';
export { RtpMedia } from './rtp-media.js';
export { parseRtp, serializeRtp, type RtpPacket } from './rtp-packet.js';
