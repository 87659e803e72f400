/** Levels (RMS) above which the microphone carries speech and the reply track carries sound. */
const VOICE_LEVEL = 0.02;
const REPLY_LEVEL = 0.01;

/** The microphone meter says the user is speaking (WebRTC: the end of speech is dated by it). */
export function carriesVoice(level: number): boolean {
  return level > VOICE_LEVEL;
}

/** Window (ms) over which captured PCM is metered: the resolution of the end of speech. */
const VOICE_WINDOW_MS = 10;

/**
 * Where the last voice in a chunk of captured PCM16 ends (ms from the chunk's start: the end of its
 * last 10 ms window above the microphone meter's level), or null when none carries voice. The
 * WebSocket's captured chunks dated by the same rule as the WebRTC call's meter.
 */
export function lastVoiceInChunk(pcm: Int16Array, rate: number): number | null {
  const window = Math.max(1, Math.round((rate * VOICE_WINDOW_MS) / 1000));
  let end: number | null = null;
  for (let i = 0; i < pcm.length; i += window) {
    const stop = Math.min(pcm.length, i + window);
    let sum = 0;
    for (let k = i; k < stop; k++) sum += (pcm[k]! / 32768) ** 2;
    if (carriesVoice(Math.sqrt(sum / (stop - i)))) end = (stop / rate) * 1000;
  }
  return end;
}

/** The reply track's meter says the reply is audible (WebRTC: the reply's first sound is dated by it). */
export function carriesReplySound(level: number): boolean {
  return level > REPLY_LEVEL;
}

/** The level bar's CSS width for an RMS level: full at a quarter of full scale, which loud speech reaches. */
export function levelBarWidth(rms: number): string {
  return `${Math.min(100, rms * 400)}%`;
}
