import { bytesFromBase64, setStatus } from './dom.js';
import { endedTheCall } from './realtime-close-status.js';
import { PcmStreamPlayer, playbackContext } from './pcm-player.js';
import type { RealtimeEvent } from './realtime-event-log.js';
import { REALTIME_RATE as RATE, type PanelContext } from './realtime-panel-state.js';

/** What the user should do about a refused face (the session.update error identifiers of docs/live-avatar.md). */
/** What the panel says for the avatar's refusals: an `error` event, or the 400 of a call refused before its answer. */
export const AVATAR_ERRORS: Record<string, string> = {
  no_face_detected: 'No face was found in that photo: pick another one (a face seen from the front, not too small).',
  avatar_unavailable:
    'This server runs without the live avatar (SVC_LIVE_AVATAR_ENABLED=false): choose "Voice only" to talk without a face.',
  avatar_requires_video: 'The avatar needs a WebRTC call that receives video (this browser offered none).',
};

/**
 * What the realtime panel does with each server event: the status line, the transcript, the turn
 * readout, the reply's player (paused, resumed, cut at a barge-in) and the errors that end a session.
 */
export async function handleServerEvent(panel: PanelContext, event: RealtimeEvent): Promise<void> {
  const { state, status, mode, transcript, latency } = panel;
  panel.log.add('in', event);
  switch (event.type) {
    case 'session.created':
      state.sessionCreated = true;
      setStatus(status, `Connected · session ${event.session?.id ?? ''}`, 'ok');
      panel.setConnected(true);
      break;
    case 'session.updated':
      setStatus(status, 'Session updated.', 'ok');
      break;
    case 'input_audio_buffer.speech_started':
      // A reply the server is still sending is paused there (response.output_audio.paused) and
      // judged; one it has finished sending may still be playing here: the page cuts that itself.
      if (!state.reply || state.reply.done) panel.bargeIn();
      transcript.users.set(event.item_id, transcript.bubble('user', '…'));
      setStatus(status, 'Listening…');
      break;
    case 'input_audio_buffer.speech_stopped': {
      // The end of speech is when the audio at audio_end_ms left this page (WebRTC: the last
      // moment the microphone carried speech), not when the server, after its silence window, said so.
      latency.speechStopped(event.audio_end_ms, state.call !== null);
      setStatus(status, 'Thinking…');
      break;
    }
    case 'conversation.item.input_audio_transcription.completed': {
      const li = transcript.users.get(event.item_id) ?? transcript.bubble('user', '');
      li.textContent = event.transcript || '(nothing recognized)';
      break;
    }
    case 'response.created':
      transcript.replies.set(event.response.id, transcript.bubble('assistant', ''));
      break;
    case 'response.output_audio_transcript.delta':
    case 'response.output_text.delta': {
      const li = transcript.replies.get(event.response_id);
      if (li) li.textContent += event.delta;
      if (mode.value === 'text') latency.record(performance.now());
      break;
    }
    case 'response.output_audio.delta': {
      let current = state.reply;
      if (!current || current.itemId !== event.item_id) {
        current = {
          itemId: event.item_id,
          responseId: event.response_id,
          player: new PcmStreamPlayer(await playbackContext(), RATE),
          done: false,
        };
        state.reply = current;
      }
      const soundAt = current.player.push(bytesFromBase64(event.delta));
      if (soundAt !== null) latency.record(soundAt);
      status.dataset.agentSpeaking = 'true';
      setStatus(status, 'Agent speaking… (talk to interrupt)');
      break;
    }
    case 'response.output_audio.paused': {
      const paused = state.reply;
      if (paused && paused.responseId === event.response_id) void paused.player.pause();
      setStatus(status, 'Listening… (the reply is paused)');
      break;
    }
    case 'response.output_audio.resumed': {
      // Not an interruption (a backchannel, a cough): the reply goes on from where it paused.
      const resumed = state.reply;
      if (resumed && resumed.responseId === event.response_id) void resumed.player.resume();
      status.dataset.agentSpeaking = 'true';
      setStatus(status, 'Agent speaking… (talk to interrupt)');
      break;
    }
    case 'output_audio_buffer.started':
      // WebRTC: the reply plays on the call's audio track.
      status.dataset.agentSpeaking = 'true';
      setStatus(status, 'Agent speaking… (talk to interrupt)');
      break;
    case 'output_audio_buffer.stopped':
      status.dataset.agentSpeaking = 'false';
      setStatus(status, 'Your turn.', 'ok');
      break;
    case 'output_audio_buffer.cleared': {
      // WebRTC barge-in: the server cut the reply where the track was; the item holds what was heard.
      status.dataset.agentSpeaking = 'false';
      transcript.replies.get(event.response_id)?.classList.add('cancelled');
      setStatus(status, 'Reply interrupted.', 'ok');
      break;
    }
    case 'conversation.item.truncated':
      panel.send({ type: 'conversation.item.retrieve', item_id: event.item_id });
      if (state.call) transcript.truncated.set(event.item_id, [...transcript.replies.values()].pop()!);
      break;
    case 'response.done': {
      const li = transcript.replies.get(event.response.id);
      if (event.response.status === 'cancelled') li?.classList.add('cancelled');
      if (event.response.status === 'cancelled') {
        // The speech proved an interruption: the paused reply stops for good.
        if (state.reply?.responseId === event.response.id) panel.bargeIn();
        setStatus(status, 'Reply interrupted.', 'ok');
        break;
      }
      // WebRTC: the track still plays the reply's last lead; output_audio_buffer.stopped says when it is over.
      if (state.call && mode.value === 'audio') break;
      // The server is done, the speakers are not: "your turn" once the queued audio has played.
      const playing = state.reply;
      if (playing && playing.responseId === event.response.id) {
        playing.done = true;
        await playing.player.finished();
        if (state.reply !== playing || status.dataset.agentSpeaking !== 'true') break;
      }
      status.dataset.agentSpeaking = 'false';
      setStatus(status, 'Your turn.', 'ok');
      break;
    }
    case 'conversation.item.retrieved': {
      const li = transcript.truncated.get(event.item.id);
      const part = event.item.content?.[0];
      if (li && part) li.textContent = part.transcript ?? part.text ?? li.textContent;
      transcript.truncated.delete(event.item.id);
      break;
    }
    case 'error':
      state.lastError = AVATAR_ERRORS[event.error?.code] ?? `Error: ${event.error?.message ?? 'unknown'}`;
      status.dataset.errorCode = event.error?.code ?? '';
      if (!state.sessionCreated) {
        // The session's first configuration was refused: the server closes it; hang up at once
        // rather than wait for the peer connection to notice.
        state.refused = true;
        state.lastError = endedTheCall(state.lastError);
        if (state.call) void panel.close();
      }
      setStatus(status, state.lastError, 'error');
      break;
    case 'session.idle_timeout':
    case 'session.max_duration_reached':
      setStatus(
        status,
        event.type === 'session.idle_timeout' ? 'Closed after 5 minutes without speech.' : 'The session reached its maximum duration.',
      );
      break;
  }
}
