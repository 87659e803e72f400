import type { RealtimeCall, LevelMeter } from './webrtc-call.js';
import type { MicCapture } from './mic-capture.js';
import type { PcmStreamPlayer } from './pcm-player.js';
import type { RealtimeEvent, RealtimeEventLog } from './realtime-event-log.js';
import type { RealtimeTranscript } from './realtime-transcript.js';
import type { TurnLatency } from './realtime-turn-latency.js';

/** Both directions use the service's default realtime format: PCM16 mono at 24 kHz. */
export const REALTIME_RATE = 24000;

/** What one connection of the panel holds: close() empties it, a new session starts from there. */
export interface PanelState {
  ws: WebSocket | null;
  /** The WebRTC call (transport `webrtc`), with meters on the microphone and on the reply track. */
  call: { rtc: RealtimeCall; micMeter: LevelMeter; replyMeter: LevelMeter | null; poll: number; micOn: boolean } | null;
  /** WebSocket transport: the microphone captured in the page. */
  mic: MicCapture | null;
  /** The spoken reply being played: one player per assistant item, to know where a barge-in cut it. */
  reply: { itemId: string; responseId: string; player: PcmStreamPlayer; done: boolean } | null;
  /** The last `error` event of this connection: kept on screen when the server then ends the session. */
  lastError: string | null;
  /** An error came before session.created: the server refused the configuration and ends the session. */
  refused: boolean;
  sessionCreated: boolean;
}

/** A fresh panel: nothing open, nothing said yet. */
export function emptyPanelState(): PanelState {
  return { ws: null, call: null, mic: null, reply: null, lastError: null, refused: false, sessionCreated: false };
}

/** A session is open (or opening) over either transport. */
export function isConnected(state: PanelState): boolean {
  return state.call !== null || state.ws !== null;
}

/** What the server-event handler works with: the connection's state and the panel's parts. */
export interface PanelContext {
  state: PanelState;
  status: HTMLElement;
  mode: HTMLSelectElement;
  log: RealtimeEventLog;
  transcript: RealtimeTranscript;
  latency: TurnLatency;
  /** Sends an event on the open connection (and logs it); nothing when none is open. */
  send(event: RealtimeEvent): void;
  setConnected(connected: boolean): void;
  /** The user talks over the agent: stop the reply playing here and truncate it to what was heard. */
  bargeIn(): void;
  /** Hangs up and resets the panel. */
  close(): Promise<void>;
}

/** A new session is a new conversation: the transcript, the turn readout, the log and the last error go. */
export function startNewConversation({ state, status, transcript, latency, log }: PanelContext): void {
  transcript.clear();
  latency.clear();
  log.clear();
  state.lastError = null;
  state.refused = false;
  state.sessionCreated = false;
  delete status.dataset.errorCode;
}
