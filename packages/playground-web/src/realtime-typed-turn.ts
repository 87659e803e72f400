import type { PanelContext } from './realtime-panel-state.js';

/**
 * The user types a turn: it interrupts the agent like speech would, shows as the user's bubble, goes
 * to the conversation with a response.create, and the turn readout times the reply from now.
 */
export function sendTypedTurn({ state, transcript, latency, send, bargeIn }: PanelContext, text: string): void {
  bargeIn();
  transcript.bubble('user', text);
  send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
  send({ type: 'response.create' });
  latency.typed(state.call !== null);
}
