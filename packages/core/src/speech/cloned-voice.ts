import type { Principal } from '../auth/api-key.js';

/**
 * Turns synthesized speech of a base preset into the cloned speaker, chunk by chunk, so streamed
 * speech keeps streaming. Implementations may hold internal latency and return it on flush().
 */
export interface StreamingVoiceConversion {
  process(chunk: Int16Array): Promise<Int16Array>;
  flush(): Promise<Int16Array>;
}

/** A custom voice ready for one synthesis: the preset to start from and how to convert it. */
export interface ClonedVoice {
  /** Preset name of the closest base voice. */
  basePreset: string;
  /** Speaking-rate multiplier that moves the base voice toward the reference speaker. */
  rate: number;
  /** A fresh converter for one response (conversions keep per-stream state). */
  startConversion(sampleRate: number): StreamingVoiceConversion;
}

/**
 * Supplies custom voices to speech synthesis: registered `voice_...` ids (scoped to the caller)
 * and one-off inline references. Implemented by the voices capability; absent, custom voices are
 * reported as unavailable.
 */
export interface VoiceCloner {
  /** Throws VoiceNotFoundError for unknown, foreign or deleted ids. */
  registered(principal: Principal, voiceId: string, signal?: AbortSignal): Promise<ClonedVoice>;
  /** `principal`: the caller (null: an embedder's own call), whose large transfers in progress a `refAudio` URL counts in. */
  inline(principal: Principal | null, refAudio: string, refText: string | null, signal?: AbortSignal): Promise<ClonedVoice>;
}

/** Starts every registered voice's id (`voice_` + digest of its audio: voices/voice.ts makes them). */
export const CUSTOM_VOICE_PREFIX = 'voice_';
