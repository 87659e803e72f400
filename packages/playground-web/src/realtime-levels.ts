/** Levels (RMS) above which the microphone carries speech and the reply track carries sound. */
const VOICE_LEVEL = 0.02;
const REPLY_LEVEL = 0.01;

/** The microphone meter says the user is speaking (WebRTC: the end of speech is dated by it). */
export function carriesVoice(level: number): boolean {
  return level > VOICE_LEVEL;
}

/** The reply track's meter says the reply is audible (WebRTC: the reply's first sound is dated by it). */
export function carriesReplySound(level: number): boolean {
  return level > REPLY_LEVEL;
}

/** The level bar's CSS width for an RMS level: full at a quarter of full scale, which loud speech reaches. */
export function levelBarWidth(rms: number): string {
  return `${Math.min(100, rms * 400)}%`;
}
