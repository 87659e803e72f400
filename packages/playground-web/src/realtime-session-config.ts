import { REALTIME_RATE as RATE } from './realtime-panel-state.js';

/** The realtime endpoints' model name (the service has one realtime model). */
export const REALTIME_MODEL = 'svc-realtime';

/** What the user chose in the realtime panel. */
export interface SessionChoices {
  instructions: string;
  /** `audio` or `text`: the reply's output modality. */
  mode: string;
  voice: string;
  /** The turn detection: `server_vad` (the default), `semantic_vad`, or `semantic_vad_high` (eagerness high). */
  turn?: string;
}

/**
 * The session's turn detection. server_vad answers after 500 ms of silence; semantic_vad judges the
 * end of the turn from the words and the voice at a short pause (eagerness high halves its waits when
 * the server honours eagerness). interruption_events: the server says when it pauses a reply over
 * speech and when it resumes it (a backchannel such as "mm-hmm" does not cancel it), so this page
 * pauses its player too.
 */
function turnDetection(turn: string | undefined) {
  if (turn === 'semantic_vad') return { type: 'semantic_vad', interruption_events: true };
  if (turn === 'semantic_vad_high') return { type: 'semantic_vad', eagerness: 'high', interruption_events: true };
  return { type: 'server_vad', silence_duration_ms: 500, interruption_events: true };
}

/** The session object (session.update, or the offer's `session` part) for the panel's choices. */
export function realtimeSession({ instructions, mode, voice, turn }: SessionChoices) {
  return {
    type: 'realtime',
    model: REALTIME_MODEL,
    instructions,
    output_modalities: [mode],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: RATE },
        turn_detection: turnDetection(turn),
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
