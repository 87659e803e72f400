import type { VoiceProfile } from './voice-profile.js';
import { CUSTOM_VOICE_PREFIX } from '../speech/cloned-voice.js';

/** A registered reference voice, owned by the API key that registered it. */
export interface VoiceRecord {
  /** `voice_` + digest of the decoded reference audio: the same audio gives the same id. */
  id: string;
  apiKeyId: string;
  refText: string;
  description: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** Blob-store key of the reference audio as uploaded (unique per registration, see RegisterVoice). */
  audioKey: string;
  /** Container/codec detected from the content (wav, mp3, flac, ogg, aac ...). */
  audioFormat: string;
  audioBytes: number;
  durationSeconds: number;
  profile: VoiceProfile;
}

/** What a listing needs: the row without the measured profile. */
export type VoiceSummary = Omit<VoiceRecord, 'profile'>;

/** Limits of the voice-create fields (documented in docs/voices.md and the OpenAPI document). */
export const VOICE_LIMITS = {
  descriptionMaxChars: 1000,
  refTextMaxChars: 5000,
  /** Shorter clips do not hold enough voiced speech to measure pitch and formants reliably. */
  minDurationSeconds: 1,
  maxDurationSeconds: 120,
  /** Of voiced speech, after silences and unvoiced sounds are removed. */
  minVoicedSeconds: 0.5,
  listDefaultLimit: 20,
  listMaxLimit: 100,
} as const;

/** Reference audio is decoded at this rate for hashing and analysis. */
export const REFERENCE_SAMPLE_RATE = 16000;

/** Digest length kept in the id: 128 bits, far beyond any collision risk. */
const ID_HEX_CHARS = 32;

export function voiceIdFromDigest(hexDigest: string): string {
  return CUSTOM_VOICE_PREFIX + hexDigest.slice(0, ID_HEX_CHARS);
}

export function isVoiceId(value: string): boolean {
  return new RegExp(`^${CUSTOM_VOICE_PREFIX}[0-9a-f]{${ID_HEX_CHARS}}$`).test(value);
}
