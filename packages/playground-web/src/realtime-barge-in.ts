import type { PanelContext } from './realtime-panel-state.js';

/** What a barge-in touches: the reply playing, the status, the reply's bubble, the connection. */
export type BargeInParts = Pick<PanelContext, 'state' | 'status' | 'transcript' | 'send'>;

/**
 * The user talks over the agent. The server cancels a reply it is still generating; a reply it
 * has finished may still be playing here (it is sent faster than real time), so the page stops
 * it and truncates the item to what was heard, which keeps the conversation true.
 */
export function bargeIn({ state, status, transcript, send }: BargeInParts): void {
  status.dataset.agentSpeaking = 'false';
  if (!state.reply) return;
  const { player, itemId, responseId, done } = state.reply;
  const wasPlaying = player.playing;
  const heardMs = player.playedMs();
  player.stop();
  state.reply = null;
  if (!wasPlaying) return;
  const li = transcript.replies.get(responseId);
  li?.classList.add('cancelled');
  if (done) {
    if (li) transcript.truncated.set(itemId, li);
    send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: heardMs });
  }
}

/** Hanging up: the reply playing here stops with the call. */
export function stopReply(state: PanelContext['state']): void {
  state.reply?.player.stop();
  state.reply = null;
}
