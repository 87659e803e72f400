import { REALTIME_RATE as RATE } from './realtime-panel-state.js';

/** The realtime endpoints' model name (the service has one realtime model). */
export const REALTIME_MODEL = 'svc-realtime';

/** What the user chose in the realtime panel. */
export interface SessionChoices {
  instructions: string;
  /** `audio` or `text`: the reply's output modality. */
  mode: string;
  voice: string;
}

/** The session object (session.update, or the offer's `session` part) for the panel's choices. */
export function realtimeSession({ instructions, mode, voice }: SessionChoices) {
  return {
    type: 'realtime',
    model: REALTIME_MODEL,
    instructions,
    output_modalities: [mode],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: RATE },
        // interruption_events: the server says when it pauses a reply over speech and when it resumes
        // it (a backchannel such as "mm-hmm" does not cancel it), so this page pauses its player too.
        turn_detection: { type: 'server_vad', silence_duration_ms: 500, interruption_events: true },
        transcription: { model: 'svc-stt-3.1' },
      },
      output: { format: { type: 'audio/pcm', rate: RATE }, voice },
    },
  };
}

export type RealtimeSessionConfig = ReturnType<typeof realtimeSession>;

/** The live avatar's part of a session as the code sample shows it: the face size (the photo goes apart). */
export function avatarConfig(size: string): { size: string } {
  return { size };
}

/**
 * A session with the live avatar, the photo inline as a data URL: it travels with the WebRTC offer
 * (multipart), since a data channel message could not carry it (the browser caps them at 256 KB).
 */
export function sessionWithFace(session: RealtimeSessionConfig, size: string, refImage: string) {
  return { ...session, avatar: { ...avatarConfig(size), ref_image: refImage } };
}
