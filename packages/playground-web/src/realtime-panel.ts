import { apiJson, describeError, jsonRequest, WS_URL } from './api.js';
import { catalog } from './catalog.js';
import { showCode } from './code-samples.js';
import { base64FromBytes, byId, bytesFromBase64, onAsync, readFileAsDataUrl, setStatus } from './dom.js';
import { initFacePicker } from './face-picker.js';
import { MicCapture } from './mic-capture.js';
import { realtimeCode } from './realtime-code.js';
import { PcmStreamPlayer, playbackContext } from './pcm-player.js';
import { AvatarVideo } from './realtime-avatar-video.js';
import { RealtimeEventLog, type RealtimeEvent } from './realtime-event-log.js';
import { RealtimeTranscript } from './realtime-transcript.js';
import { REALTIME_RATE as RATE, type PanelContext, type PanelState } from './realtime-panel-state.js';
import { handleServerEvent } from './realtime-server-events.js';
import { TurnLatency } from './realtime-turn-latency.js';
import { LevelMeter, RealtimeCall } from './webrtc-call.js';

const MODEL = 'svc-realtime';
/** Levels (RMS) above which the microphone carries speech and the reply track carries sound. */
const VOICE_LEVEL = 0.02;
const REPLY_LEVEL = 0.01;

type ServerEvent = RealtimeEvent;

/**
 * A realtime session from the browser: an ephemeral client secret minted with the API key (a
 * same-origin REST call), then either a WebRTC call (the default: the offer POSTed to
 * /v1/realtime/calls with the secret, the microphone as an Opus track with echo cancellation, the
 * events on the `oai-events` data channel) or the WebSocket authenticated by the subprotocol
 * `svc-client-secret.<secret>`. The API key itself never goes into the call or the socket.
 */
export function initRealtimePanel(): void {
  const voice = byId<HTMLSelectElement>('rt-voice');
  const transport = byId<HTMLSelectElement>('rt-transport');
  const mode = byId<HTMLSelectElement>('rt-mode');
  const instructions = byId<HTMLTextAreaElement>('rt-instructions');
  const preset = byId<HTMLSelectElement>('rt-instructions-preset');
  const connect = byId<HTMLButtonElement>('rt-connect');
  const micButton = byId<HTMLButtonElement>('rt-mic');
  const disconnect = byId<HTMLButtonElement>('rt-disconnect');
  const textForm = byId<HTMLFormElement>('rt-text-form');
  const textInput = byId<HTMLInputElement>('rt-text');
  const send = byId<HTMLButtonElement>('rt-send');
  const status = byId('rt-status');
  const level = byId('rt-level');
  const avatarControls = byId<HTMLFieldSetElement>('rt-avatar');
  const faceSize = byId<HTMLSelectElement>('rt-face-size');
  const faceNone = byId<HTMLButtonElement>('rt-face-none');
  const picker = initFacePicker({ file: byId('rt-face-image'), preview: byId('rt-face-preview'), samples: byId('rt-face-samples') });
  catalog.onChange(() => catalog.fill(voice));

  const log = new RealtimeEventLog(byId<HTMLOListElement>('rt-log'));
  const transcript = new RealtimeTranscript(byId<HTMLOListElement>('rt-transcript'));
  const latency = new TurnLatency(byId<HTMLUListElement>('rt-latency'), mode);
  const avatarVideo = new AvatarVideo(byId<HTMLVideoElement>('rt-video'), byId('rt-video-stats'));
  const state: PanelState = { ws: null, call: null, mic: null, reply: null, lastError: null, refused: false, sessionCreated: false };

  const session = () => ({
    type: 'realtime',
    model: MODEL,
    instructions: instructions.value,
    output_modalities: [mode.value],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: RATE },
        // interruption_events: the server says when it pauses a reply over speech and when it resumes
        // it (a backchannel such as "mm-hmm" does not cancel it), so this page pauses its player too.
        turn_detection: { type: 'server_vad', silence_duration_ms: 500, interruption_events: true },
        transcription: { model: 'svc-stt-3.1' },
      },
      output: { format: { type: 'audio/pcm', rate: RATE }, voice: voice.value },
    },
  });

  const sendEvent = (event: ServerEvent) => {
    if (state.call) {
      if (!state.call.rtc.open) return;
      state.call.rtc.send(event);
    } else {
      if (!state.ws || state.ws.readyState !== WebSocket.OPEN) return;
      state.ws.send(JSON.stringify(event));
    }
    log.add('out', event);
  };
  const connected = () => state.call !== null || state.ws !== null;

  /** A face can be chosen before a WebRTC call, not during one (hang up to change it). */
  const syncAvatarControls = () => {
    avatarControls.disabled = transport.value !== 'webrtc' || connected() || connect.disabled;
    faceNone.disabled = picker.face() === null;
  };
  const avatarOf = () => ({ size: faceSize.value });
  const wantsAvatar = () => transport.value === 'webrtc' && picker.face() !== null;
  const updateCode = () => showCode('realtime', realtimeCode(session(), transport.value, wantsAvatar() ? avatarOf() : null));

  const setConnected = (connected: boolean) => {
    connect.disabled = connected;
    disconnect.disabled = !connected;
    micButton.disabled = !connected;
    textInput.disabled = !connected;
    send.disabled = !connected;
    syncAvatarControls();
  };

  const stopMic = async () => {
    if (state.call) {
      state.call.rtc.setMicEnabled(false);
      state.call.micOn = false;
    }
    await state.mic?.stop();
    state.mic = null;
    level.style.width = '0';
    micButton.setAttribute('aria-pressed', 'false');
    micButton.textContent = 'Start microphone';
  };

  const close = async () => {
    await stopMic();
    state.reply?.player.stop();
    state.reply = null;
    state.ws?.close(1000, 'client closed');
    state.ws = null;
    if (state.call) {
      clearInterval(state.call.poll);
      state.call.rtc.close();
      state.call = null;
    }
    avatarVideo.hide();
    status.dataset.agentSpeaking = 'false';
    setConnected(false);
  };

  /**
   * WebRTC: every 20 ms the microphone meter (and when speech was last heard in it) and the reply
   * track's meter: the turn latency is measured at the browser, from the last sound of the user's
   * speech to the first sound of the reply.
   */
  const pollMeters = () => {
    if (!state.call) return;
    const now = performance.now();
    const micLevel = state.call.micOn ? state.call.micMeter.level() : 0;
    if (micLevel > VOICE_LEVEL) latency.lastVoiceAt = now;
    level.style.width = `${Math.min(100, micLevel * 400)}%`;
    if (latency.awaitingReplySound && state.call.replyMeter && state.call.replyMeter.level() > REPLY_LEVEL) {
      latency.awaitingReplySound = false;
      latency.record(now);
    }
  };

  /**
   * With a face, the session (the photo inline) goes with the offer, as multipart: a data channel
   * message could not carry the photo (the browser caps them at 256 KB).
   */
  const openCall = async (secret: string, face: Blob | null) => {
    const withFace = face ? { ...session(), avatar: { ...avatarOf(), ref_image: await readFileAsDataUrl(face) } } : null;
    if (withFace) avatarVideo.show();
    const rtc = await RealtimeCall.open(
      secret,
      {
        onEvent: (event) => void onServerEvent(event as ServerEvent),
        onClose: (reason) => {
          if (state.call?.rtc === rtc) void close();
          if (state.lastError)
            setStatus(
              status,
              state.lastError.endsWith('(the call ended)') ? state.lastError : `${state.lastError} (the call ended)`,
              'error',
            );
          else setStatus(status, `Disconnected (${reason}).`, '');
        },
      },
      withFace ? { video: avatarVideo.video, session: withFace } : {},
    );
    const ctx = await playbackContext();
    state.call = { rtc, micMeter: new LevelMeter(ctx, rtc.mic), replyMeter: null, poll: window.setInterval(pollMeters, 20), micOn: false };
    const current = state.call;
    void rtc.remote.then((stream) => {
      current.replyMeter = new LevelMeter(ctx, stream);
      status.dataset.jitterBufferTarget = String(rtc.jitterBufferTarget());
    });
    status.dataset.echoCancellation = String(rtc.micSettings().echoCancellation === true);
    status.dataset.avatar = String(withFace !== null);
    // A refused configuration (a photo without a face) can end the call before this line: clean up now.
    if (!rtc.open || state.refused) return void close();
    if (!withFace) sendEvent({ type: 'session.update', session: session() });
  };

  /**
   * The user talks over the agent. The server cancels a reply it is still generating; a reply it
   * has finished may still be playing here (it is sent faster than real time), so the page stops
   * it and truncates the item to what was heard, which keeps the conversation true.
   */
  const bargeIn = () => {
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
      sendEvent({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: heardMs });
    }
  };

  const panel: PanelContext = { state, status, mode, log, transcript, latency, send: sendEvent, setConnected, bargeIn, close };
  const onServerEvent = (event: ServerEvent) => handleServerEvent(panel, event);

  onAsync(connect, 'click', async () => {
    connect.disabled = true;
    // A new session is a new conversation.
    transcript.clear();
    latency.clear();
    log.clear();
    state.lastError = null;
    state.refused = false;
    state.sessionCreated = false;
    delete status.dataset.errorCode;
    syncAvatarControls();
    setStatus(status, 'Minting a client secret…');
    try {
      await playbackContext(); // inside the click, so replies may play
      const secret = await apiJson<{ value: string; expires_at: number }>(
        '/v1/realtime/client_secrets',
        jsonRequest('POST', { expires_after: { seconds: 600 } }),
      );
      updateCode();
      status.dataset.transport = transport.value;
      if (transport.value === 'webrtc') {
        const face = picker.face();
        setStatus(status, face ? 'Calling over WebRTC with the face (the server prepares it in about a second)…' : 'Calling over WebRTC…');
        await openCall(secret.value, face);
        return;
      }
      setStatus(status, 'Opening the WebSocket…');
      const socket = new WebSocket(`${WS_URL}/v1/realtime?model=${MODEL}`, ['realtime', `svc-client-secret.${secret.value}`]);
      state.ws = socket;
      socket.onopen = () => sendEvent({ type: 'session.update', session: session() });
      socket.onmessage = (m) => void onServerEvent(JSON.parse(String(m.data)) as ServerEvent);
      socket.onclose = (e) => {
        if (state.ws === socket) void close();
        setStatus(status, `Disconnected (${e.code}${e.reason ? ` ${e.reason}` : ''}).`, e.code === 1000 ? '' : 'error');
      };
    } catch (err) {
      avatarVideo.hide();
      setStatus(status, describeError(err), 'error');
      connect.disabled = false;
      syncAvatarControls();
    }
  });

  disconnect.addEventListener('click', () => void close());

  onAsync(micButton, 'click', async () => {
    if (state.call) {
      // WebRTC: the microphone is the call's track; the button turns it on and off.
      if (state.call.micOn) return stopMic();
      state.call.rtc.setMicEnabled(true);
      state.call.micOn = true;
      micButton.setAttribute('aria-pressed', 'true');
      micButton.textContent = '■ Stop microphone';
      setStatus(status, 'Microphone on: talk, then pause.', 'ok');
      return;
    }
    if (state.mic) return stopMic();
    micButton.disabled = true;
    try {
      state.mic = await MicCapture.start(RATE, ({ pcm, level: rms }) => {
        const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
        sendEvent({ type: 'input_audio_buffer.append', audio: base64FromBytes(bytes) });
        latency.sent(pcm.length, RATE);
        level.style.width = `${Math.min(100, rms * 400)}%`;
      });
      micButton.setAttribute('aria-pressed', 'true');
      micButton.textContent = '■ Stop microphone';
      setStatus(status, 'Microphone on: talk, then pause.', 'ok');
    } catch (err) {
      setStatus(status, `Microphone: ${describeError(err)}`, 'error');
    } finally {
      micButton.disabled = !connected();
    }
  });

  textForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = textInput.value.trim();
    if (!text || !connected()) return;
    bargeIn();
    transcript.bubble('user', text);
    sendEvent({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    sendEvent({ type: 'response.create' });
    latency.typed();
    textInput.value = '';
  });

  preset.addEventListener('change', () => {
    if (!preset.value) return instructions.focus();
    instructions.value = preset.value;
    instructions.dispatchEvent(new Event('change'));
  });
  instructions.addEventListener('input', () => {
    if (instructions.value !== preset.value) preset.value = '';
  });

  for (const control of [voice, mode, instructions]) {
    control.addEventListener('change', () => {
      if (!connected()) return;
      sendEvent({ type: 'session.update', session: session() });
      updateCode();
    });
  }
  transport.addEventListener('change', () => {
    syncAvatarControls();
    updateCode();
  });
  picker.onChange(() => {
    syncAvatarControls();
    updateCode();
  });
  faceSize.addEventListener('change', updateCode);
  faceNone.addEventListener('click', () => picker.clear());

  syncAvatarControls();
  updateCode();
}
