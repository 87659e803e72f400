import { ApiError, describeError } from './api.js';
import { byId, onAsync, setStatus } from './dom.js';
import { playbackContext } from './pcm-player.js';
import { AvatarVideo } from './realtime-avatar-video.js';
import { bargeIn, stopReply } from './realtime-barge-in.js';
import { mintClientSecret, RealtimeConnection } from './realtime-connection.js';
import { RealtimeControls } from './realtime-controls.js';
import { RealtimeEventLog } from './realtime-event-log.js';
import { RealtimeMicrophone } from './realtime-microphone.js';
import { emptyPanelState, startNewConversation, type PanelContext } from './realtime-panel-state.js';
import { AVATAR_ERRORS, handleServerEvent } from './realtime-server-events.js';
import { RealtimeTranscript } from './realtime-transcript.js';
import { TurnLatency } from './realtime-turn-latency.js';
import { sendTypedTurn } from './realtime-typed-turn.js';

/**
 * A realtime session from the browser: an ephemeral client secret minted with the API key (a
 * same-origin REST call), then either a WebRTC call (the default: the offer POSTed to
 * /v1/realtime/calls with the secret, the microphone as an Opus track with echo cancellation, the
 * events on the `oai-events` data channel) or the WebSocket authenticated by the subprotocol
 * `svc-client-secret.<secret>`. The API key itself never goes into the call or the socket.
 */
export function initRealtimePanel(): void {
  const controls = new RealtimeControls();
  const { status, mode } = controls;
  const log = new RealtimeEventLog(byId<HTMLOListElement>('rt-log'));
  const transcript = new RealtimeTranscript(byId<HTMLOListElement>('rt-transcript'));
  const latency = new TurnLatency(byId<HTMLUListElement>('rt-latency'), mode);
  const avatarVideo = new AvatarVideo(byId<HTMLVideoElement>('rt-video'), byId('rt-video-stats'));
  const state = emptyPanelState();
  const connection = new RealtimeConnection(
    { state, status, log, avatarVideo, sessions: controls },
    {
      onEvent: (event) => void handleServerEvent(panel, event),
      onEnded: () => void close(),
      onMeterTick: () => microphone.readMeters(),
    },
  );
  const { send } = connection;
  const microphone = new RealtimeMicrophone({ state, button: controls.micButton, levelBar: controls.level, status, latency, send });

  const close = async () => {
    await microphone.stop();
    stopReply(state);
    connection.close();
    avatarVideo.hide();
    status.dataset.agentSpeaking = 'false';
    controls.setConnected(false);
  };
  const setConnected = (connected: boolean) => controls.setConnected(connected);
  const panel: PanelContext = { state, status, mode, log, transcript, latency, send, close, setConnected, bargeIn: () => bargeIn(panel) };

  onAsync(controls.connect, 'click', async () => {
    controls.setConnecting(true, connection.connected);
    startNewConversation(panel);
    setStatus(status, 'Minting a client secret…');
    try {
      await playbackContext(); // inside the click, so replies may play
      const secret = await mintClientSecret();
      controls.showCode();
      status.dataset.transport = controls.transport.value;
      await connection.open(secret, controls.transport.value, controls.picker.face());
    } catch (err) {
      avatarVideo.hide();
      // a call refused before its answer (e.g. a face it cannot show: 400 avatar_unavailable) names its code as the error event would
      const code = err instanceof ApiError ? err.type : null;
      if (code) status.dataset.errorCode = code;
      setStatus(status, (code && AVATAR_ERRORS[code]) || describeError(err), 'error');
      controls.setConnecting(false, connection.connected);
    }
  });
  controls.disconnect.addEventListener('click', () => void close());
  onAsync(controls.micButton, 'click', () => microphone.toggle());

  controls.textForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = controls.textInput.value.trim();
    if (!text || !connection.connected) return;
    sendTypedTurn(panel, text);
    controls.textInput.value = '';
  });
  controls.listen(
    () => connection.connected,
    () => send({ type: 'session.update', session: controls.session() }),
  );
}
