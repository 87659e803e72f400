import { apiJson, jsonRequest, WS_URL } from './api.js';
import { setStatus } from './dom.js';
import { playbackContext } from './pcm-player.js';
import type { AvatarVideo } from './realtime-avatar-video.js';
import { callEndedStatus, socketClosedStatus } from './realtime-close-status.js';
import type { RealtimeEvent, RealtimeEventLog } from './realtime-event-log.js';
import { isConnected, type PanelState } from './realtime-panel-state.js';
import { REALTIME_MODEL, type RealtimeSessionConfig } from './realtime-session-config.js';
import { LevelMeter, RealtimeCall } from './webrtc-call.js';

/** How often the call's meters are read (the microphone's level bar, the turn's end and the reply's first sound). */
const METER_INTERVAL_MS = 20;

/** The session a connection opens with: from the panel's controls, read when it is sent. */
export interface SessionSource {
  session(): RealtimeSessionConfig;
  sessionWithFace(face: Blob): Promise<Record<string, unknown>>;
}

export interface ConnectionParts {
  state: PanelState;
  status: HTMLElement;
  log: RealtimeEventLog;
  avatarVideo: AvatarVideo;
  sessions: SessionSource;
}

export interface ConnectionEvents {
  onEvent(event: RealtimeEvent): void;
  /** The transport ended without the panel closing it (the server, the network, a refused configuration). */
  onEnded(): void;
  /** During a call, every few milliseconds: the meters are read. */
  onMeterTick(): void;
}

/** The ephemeral client secret a browser connects with, minted with the API key by a same-origin REST call. */
export async function mintClientSecret(): Promise<string> {
  const secret = await apiJson<{ value: string; expires_at: number }>(
    '/v1/realtime/client_secrets',
    jsonRequest('POST', { expires_after: { seconds: 600 } }),
  );
  return secret.value;
}

/**
 * The panel's connection to the realtime service: a WebRTC call (the session's events on its data
 * channel) or a WebSocket (authenticated by the subprotocol `svc-client-secret.<secret>`), never
 * both; events go out over whichever is open. The API key itself never goes into either.
 */
export class RealtimeConnection {
  constructor(
    private readonly parts: ConnectionParts,
    private readonly events: ConnectionEvents,
  ) {}

  get connected(): boolean {
    return isConnected(this.parts.state);
  }

  /** Sends an event on the open connection (and logs it); nothing when none is open. */
  readonly send = (event: RealtimeEvent): void => {
    const { state, log } = this.parts;
    if (state.call) {
      if (!state.call.rtc.open) return;
      state.call.rtc.send(event);
    } else {
      if (!state.ws || state.ws.readyState !== WebSocket.OPEN) return;
      state.ws.send(JSON.stringify(event));
    }
    log.add('out', event);
  };

  /** Opens the transport chosen (`webrtc` or `websocket`), with the live avatar when a face is given (WebRTC only). */
  async open(secret: string, transport: string, face: Blob | null): Promise<void> {
    const { status } = this.parts;
    if (transport === 'webrtc') {
      setStatus(status, face ? 'Calling over WebRTC with the face (the server prepares it in about a second)…' : 'Calling over WebRTC…');
      return this.openCall(secret, face);
    }
    setStatus(status, 'Opening the WebSocket…');
    this.openSocket(secret);
  }

  /**
   * With a face, the session (the photo inline) goes with the offer, as multipart: a data channel
   * message could not carry the photo (the browser caps them at 256 KB).
   */
  private async openCall(secret: string, face: Blob | null): Promise<void> {
    const { state, status, avatarVideo, sessions } = this.parts;
    const withFace = face ? await sessions.sessionWithFace(face) : null;
    if (withFace) avatarVideo.show();
    const rtc = await RealtimeCall.open(
      secret,
      {
        onEvent: (event) => this.events.onEvent(event),
        onClose: (reason) => {
          if (state.call?.rtc === rtc) this.events.onEnded();
          const ended = callEndedStatus(state.lastError, reason);
          setStatus(status, ended.text, ended.kind);
        },
      },
      withFace ? { video: avatarVideo.video, session: withFace } : {},
    );
    const ctx = await playbackContext();
    const poll = window.setInterval(() => this.events.onMeterTick(), METER_INTERVAL_MS);
    const current: NonNullable<PanelState['call']> = { rtc, micMeter: new LevelMeter(ctx, rtc.mic), replyMeter: null, poll, micOn: false };
    state.call = current;
    void rtc.remote.then((stream) => {
      current.replyMeter = new LevelMeter(ctx, stream);
      status.dataset.jitterBufferTarget = String(rtc.jitterBufferTarget());
    });
    status.dataset.echoCancellation = String(rtc.micSettings().echoCancellation === true);
    status.dataset.avatar = String(withFace !== null);
    // A refused configuration (a photo without a face) can end the call before this line: clean up now.
    if (!rtc.open || state.refused) return this.events.onEnded();
    if (!withFace) this.send({ type: 'session.update', session: sessions.session() });
  }

  private openSocket(secret: string): void {
    const { state, status, sessions } = this.parts;
    const socket = new WebSocket(`${WS_URL}/v1/realtime?model=${REALTIME_MODEL}`, ['realtime', `svc-client-secret.${secret}`]);
    state.ws = socket;
    socket.onopen = () => this.send({ type: 'session.update', session: sessions.session() });
    socket.onmessage = (m) => this.events.onEvent(JSON.parse(String(m.data)) as RealtimeEvent);
    socket.onclose = (e) => {
      if (state.ws === socket) this.events.onEnded();
      const closed = socketClosedStatus(e.code, e.reason);
      setStatus(status, closed.text, closed.kind);
    };
  }

  /** Hangs up whichever transport is open (the call's meters stop with it). */
  close(): void {
    const { state } = this.parts;
    state.ws?.close(1000, 'client closed');
    state.ws = null;
    if (state.call) {
      const { rtc, poll } = state.call;
      clearInterval(poll);
      // Off the state first: the call's onClose then shows 'Disconnected (client closed).' without ending it again.
      state.call = null;
      rtc.close();
    }
  }
}
