import type { Principal } from '../../auth/api-key.js';
import type { RealtimeVoiceDirectory } from '../ports/voice-directory.js';
import { invalidRequest } from '../protocol/realtime-error.js';

/**
 * The output voice a session configuration names must exist for the caller (a preset, or one of its
 * key's voices). Shared by session.update and by a WebRTC call's multipart `session`, which is
 * checked before the call is answered. Throws the RealtimeError the session sends as its `error`.
 */
export async function checkSessionVoice(voice: string | null, voices: RealtimeVoiceDirectory, principal: Principal): Promise<void> {
  if (voice !== null && !(await voices.exists(voice, principal))) {
    throw invalidRequest('voice_not_found', `Unknown voice '${voice}'.`, 'session.audio.output.voice');
  }
}
