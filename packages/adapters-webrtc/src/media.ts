// `@svc/adapters-webrtc/media`: a call's media parts without a peer connection (the live-avatar
// benchmark drives them, a test warms werift with them). This entry imports werift; the package's
// main entry does not (its stack loads with the first call).
export { CallVideo, type CallVideoOptions } from './call-video.js';
export { mediaClock } from './media-clock.js';
export { RtpAudioTrack, RTP_SAMPLE_RATE, FRAME_MS } from './rtp-audio-track.js';
export { RtpVideoTrack } from './rtp-video-track.js';
export { warmUpWebRtc } from './warm-up.js';
