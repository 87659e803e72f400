import type { Principal } from '../../auth/api-key.js';

/** Answers whether an output voice exists for the caller (a preset, or one of the caller's voices). */
export interface RealtimeVoiceDirectory {
  exists(voice: string, principal: Principal): Promise<boolean>;
}
