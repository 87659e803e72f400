import { apiJson, describeError, jsonRequest, WS_URL } from './api.js';
import { catalog } from './catalog.js';
import { showCode } from './code-samples.js';
import { base64FromBytes, byId, bytesFromBase64, element, onAsync, readFileAsDataUrl, setStatus } from './dom.js';
import { initFacePicker } from './face-picker.js';
import { MicCapture } from './mic-capture.js';
import { realtimeCode } from './realtime-code.js';
import { PcmStreamPlayer, playbackContext } from './pcm-player.js';
import { LevelMeter, RealtimeCall } from './webrtc-call.js';

/** Both directions use the service's default realtime format: PCM16 mono at 24 kHz. */
const RATE = 24000;
const MODEL = 'svc-realtime';
const LOG_LIMIT = 300;
/** Levels (RMS) above which the microphone carries speech and the reply track carries sound. */
const VOICE_LEVEL = 0.02;
const REPLY_LEVEL = 0.01;

type ServerEvent = { type: string; [field: string]: any };

/** What the user should do about a refused face (the session.update error identifiers of docs/live-avatar.md). */
const AVATAR_ERRORS: Record<string, string> = {
  no_face_detected: 'No face was found in that photo: pick another one (a face seen from the front, not too small).',
  avatar_unavailable:
    'This server runs without the live avatar (SVC_LIVE_AVATAR_ENABLED=false): choose "Voice only" to talk without a face.',
  avatar_requires_video: 'The avatar needs a WebRTC call that receives video (this browser offered none).',
};

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
  const transcript = byId<HTMLOListElement>('rt-transcript');
  const latencyList = byId<HTMLUListElement>('rt-latency');
  const log = byId<HTMLOListElement>('rt-log');
  const avatarControls = byId<HTMLFieldSetElement>('rt-avatar');
  const faceSize = byId<HTMLSelectElement>('rt-face-size');
  const faceNone = byId<HTMLButtonElement>('rt-face-none');
  const video = byId<HTMLVideoElement>('rt-video');
  const videoStats = byId('rt-video-stats');
  const picker = initFacePicker({ file: byId('rt-face-image'), preview: byId('rt-face-preview'), samples: byId('rt-face-samples') });
  catalog.onChange(() => catalog.fill(voice));

  let ws: WebSocket | null = null;
  /** The WebRTC call (transport `webrtc`), with meters on the microphone and on the reply track. */
  let call: { rtc: RealtimeCall; micMeter: LevelMeter; replyMeter: LevelMeter | null; poll: number; micOn: boolean } | null = null;
  /** WebRTC: when the microphone last carried speech, and whether a reply's first sound is awaited. */
  let lastVoiceAt = 0;
  let awaitingReplySound = false;
  let mic: MicCapture | null = null;
  /** The spoken reply being played: one player per assistant item, to know where a barge-in cut it. */
  let reply: { itemId: string; responseId: string; player: PcmStreamPlayer; done: boolean } | null = null;
  /** Milliseconds of microphone audio sent, and when each append left, to date the end of speech. */
  let sentMs = 0;
  const sentAt: Array<{ ms: number; at: number }> = [];
  /** When the user's turn ended (performance.now()), until the reply's first audio or text. */
  let turnEndedAt: number | null = null;
  let turnKind: 'spoken' | 'typed' = 'spoken';
  let appendsLogged = 0;
  const userBubbles = new Map<string, HTMLLIElement>();
  const replyBubbles = new Map<string, HTMLLIElement>();
  /** Assistant items truncated at a barge-in, until the server's copy shows what was kept. */
  const truncatedBubbles = new Map<string, HTMLLIElement>();
  /** The last `error` event of this connection: kept on screen when the server then ends the session. */
  let lastError: string | null = null;
  /** An error came before session.created: the server refused the configuration and ends the session. */
  let refused = false;
  let sessionCreated = false;
  /** Stops counting the avatar's presented frames. */
  let stopFrameCounter: (() => void) | null = null;

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

  const logEvent = (direction: 'in' | 'out', event: ServerEvent) => {
    if (event.type === 'input_audio_buffer.append') {
      // One line per second of microphone audio, not one per 40 ms chunk.
      if (appendsLogged++ % 25 !== 0) return;
    }
    const shown = JSON.stringify(event, (k, v) =>
      (k === 'audio' || k === 'delta') && typeof v === 'string' && v.length > 60 ? `${v.slice(0, 24)}… (${v.length} chars)` : v,
    );
    log.append(element('li', { class: direction, text: `${direction === 'in' ? '↓' : '↑'} ${shown}` }));
    while (log.childElementCount > LOG_LIMIT) log.firstElementChild!.remove();
    log.scrollTop = log.scrollHeight;
  };

  const sendEvent = (event: ServerEvent) => {
    if (call) {
      if (!call.rtc.open) return;
      call.rtc.send(event);
    } else {
      if (!ws || ws.readyState !== WebSocket.OPEN) return;
      ws.send(JSON.stringify(event));
    }
    logEvent('out', event);
  };
  const connected = () => call !== null || ws !== null;

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

  /** The avatar's picture: shown with the presented frames per second (requestVideoFrameCallback). */
  const showVideo = () => {
    video.hidden = false;
    videoStats.hidden = false;
    videoStats.textContent = 'Waiting for the first frame…';
    let stopped = false;
    let frames = 0;
    let windowStart = performance.now();
    const onFrame = () => {
      if (stopped) return;
      frames++;
      const now = performance.now();
      if (now - windowStart >= 1000) {
        videoStats.textContent = `Avatar video ${video.videoWidth}×${video.videoHeight} · ${Math.round((frames * 1000) / (now - windowStart))} frames/s`;
        frames = 0;
        windowStart = now;
      }
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
    stopFrameCounter = () => (stopped = true);
  };
  const hideVideo = () => {
    stopFrameCounter?.();
    stopFrameCounter = null;
    video.srcObject = null;
    video.hidden = true;
    videoStats.hidden = true;
  };

  const bubble = (role: 'user' | 'assistant', text: string) => {
    const li = element('li', { class: role, text });
    transcript.append(li);
    return li;
  };

  const recordLatency = (soundAt: number) => {
    if (turnEndedAt === null) return;
    const ms = Math.max(0, Math.round(soundAt - turnEndedAt));
    latencyList.append(
      element('li', {
        'data-latency-ms': String(ms),
        text: `${turnKind} turn: ${ms} ms to first ${mode.value === 'audio' ? 'audio' : 'text'}`,
      }),
    );
    turnEndedAt = null;
  };

  const stopMic = async () => {
    if (call) {
      call.rtc.setMicEnabled(false);
      call.micOn = false;
    }
    await mic?.stop();
    mic = null;
    level.style.width = '0';
    micButton.setAttribute('aria-pressed', 'false');
    micButton.textContent = 'Start microphone';
  };

  const close = async () => {
    await stopMic();
    reply?.player.stop();
    reply = null;
    ws?.close(1000, 'client closed');
    ws = null;
    if (call) {
      clearInterval(call.poll);
      call.rtc.close();
      call = null;
    }
    hideVideo();
    status.dataset.agentSpeaking = 'false';
    setConnected(false);
  };

  /**
   * WebRTC: every 20 ms the microphone meter (and when speech was last heard in it) and the reply
   * track's meter: the turn latency is measured at the browser, from the last sound of the user's
   * speech to the first sound of the reply.
   */
  const pollMeters = () => {
    if (!call) return;
    const now = performance.now();
    const micLevel = call.micOn ? call.micMeter.level() : 0;
    if (micLevel > VOICE_LEVEL) lastVoiceAt = now;
    level.style.width = `${Math.min(100, micLevel * 400)}%`;
    if (awaitingReplySound && call.replyMeter && call.replyMeter.level() > REPLY_LEVEL) {
      awaitingReplySound = false;
      recordLatency(now);
    }
  };

  /**
   * With a face, the session (the photo inline) goes with the offer, as multipart: a data channel
   * message could not carry the photo (the browser caps them at 256 KB).
   */
  const openCall = async (secret: string, face: Blob | null) => {
    const withFace = face ? { ...session(), avatar: { ...avatarOf(), ref_image: await readFileAsDataUrl(face) } } : null;
    if (withFace) showVideo();
    const rtc = await RealtimeCall.open(
      secret,
      {
        onEvent: (event) => void onServerEvent(event as ServerEvent),
        onClose: (reason) => {
          if (call?.rtc === rtc) void close();
          if (lastError) setStatus(status, lastError.endsWith('(the call ended)') ? lastError : `${lastError} (the call ended)`, 'error');
          else setStatus(status, `Disconnected (${reason}).`, '');
        },
      },
      withFace ? { video, session: withFace } : {},
    );
    const ctx = await playbackContext();
    call = { rtc, micMeter: new LevelMeter(ctx, rtc.mic), replyMeter: null, poll: window.setInterval(pollMeters, 20), micOn: false };
    const current = call;
    void rtc.remote.then((stream) => {
      current.replyMeter = new LevelMeter(ctx, stream);
      status.dataset.jitterBufferTarget = String(rtc.jitterBufferTarget());
    });
    status.dataset.echoCancellation = String(rtc.micSettings().echoCancellation === true);
    status.dataset.avatar = String(withFace !== null);
    // A refused configuration (a photo without a face) can end the call before this line: clean up now.
    if (!rtc.open || refused) return void close();
    if (!withFace) sendEvent({ type: 'session.update', session: session() });
  };

  /**
   * The user talks over the agent. The server cancels a reply it is still generating; a reply it
   * has finished may still be playing here (it is sent faster than real time), so the page stops
   * it and truncates the item to what was heard, which keeps the conversation true.
   */
  const bargeIn = () => {
    status.dataset.agentSpeaking = 'false';
    if (!reply) return;
    const { player, itemId, responseId, done } = reply;
    const wasPlaying = player.playing;
    const heardMs = player.playedMs();
    player.stop();
    reply = null;
    if (!wasPlaying) return;
    const li = replyBubbles.get(responseId);
    li?.classList.add('cancelled');
    if (done) {
      if (li) truncatedBubbles.set(itemId, li);
      sendEvent({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: heardMs });
    }
  };

  const onServerEvent = async (event: ServerEvent) => {
    logEvent('in', event);
    switch (event.type) {
      case 'session.created':
        sessionCreated = true;
        setStatus(status, `Connected · session ${event.session?.id ?? ''}`, 'ok');
        setConnected(true);
        break;
      case 'session.updated':
        setStatus(status, 'Session updated.', 'ok');
        break;
      case 'input_audio_buffer.speech_started':
        // A reply the server is still sending is paused there (response.output_audio.paused) and
        // judged; one it has finished sending may still be playing here: the page cuts that itself.
        if (!reply || reply.done) bargeIn();
        userBubbles.set(event.item_id, bubble('user', '…'));
        setStatus(status, 'Listening…');
        break;
      case 'input_audio_buffer.speech_stopped': {
        // The end of speech is when the audio at audio_end_ms left this page (WebRTC: the last
        // moment the microphone carried speech), not when the server, after its silence window, said so.
        const sent = sentAt.find((s) => s.ms >= event.audio_end_ms);
        turnEndedAt = call ? lastVoiceAt || performance.now() : (sent?.at ?? performance.now());
        awaitingReplySound = call !== null && mode.value === 'audio';
        turnKind = 'spoken';
        setStatus(status, 'Thinking…');
        break;
      }
      case 'conversation.item.input_audio_transcription.completed': {
        const li = userBubbles.get(event.item_id) ?? bubble('user', '');
        li.textContent = event.transcript || '(nothing recognized)';
        break;
      }
      case 'response.created':
        replyBubbles.set(event.response.id, bubble('assistant', ''));
        break;
      case 'response.output_audio_transcript.delta':
      case 'response.output_text.delta': {
        const li = replyBubbles.get(event.response_id);
        if (li) li.textContent += event.delta;
        if (mode.value === 'text') recordLatency(performance.now());
        break;
      }
      case 'response.output_audio.delta': {
        let current = reply;
        if (!current || current.itemId !== event.item_id) {
          current = {
            itemId: event.item_id,
            responseId: event.response_id,
            player: new PcmStreamPlayer(await playbackContext(), RATE),
            done: false,
          };
          reply = current;
        }
        const soundAt = current.player.push(bytesFromBase64(event.delta));
        if (soundAt !== null) recordLatency(soundAt);
        status.dataset.agentSpeaking = 'true';
        setStatus(status, 'Agent speaking… (talk to interrupt)');
        break;
      }
      case 'response.output_audio.paused': {
        const paused = reply;
        if (paused && paused.responseId === event.response_id) void paused.player.pause();
        setStatus(status, 'Listening… (the reply is paused)');
        break;
      }
      case 'response.output_audio.resumed': {
        // Not an interruption (a backchannel, a cough): the reply goes on from where it paused.
        const resumed = reply;
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
        replyBubbles.get(event.response_id)?.classList.add('cancelled');
        setStatus(status, 'Reply interrupted.', 'ok');
        break;
      }
      case 'conversation.item.truncated':
        sendEvent({ type: 'conversation.item.retrieve', item_id: event.item_id });
        if (call) truncatedBubbles.set(event.item_id, [...replyBubbles.values()].pop()!);
        break;
      case 'response.done': {
        const li = replyBubbles.get(event.response.id);
        if (event.response.status === 'cancelled') li?.classList.add('cancelled');
        if (event.response.status === 'cancelled') {
          // The speech proved an interruption: the paused reply stops for good.
          if (reply?.responseId === event.response.id) bargeIn();
          setStatus(status, 'Reply interrupted.', 'ok');
          break;
        }
        // WebRTC: the track still plays the reply's last lead; output_audio_buffer.stopped says when it is over.
        if (call && mode.value === 'audio') break;
        // The server is done, the speakers are not: "your turn" once the queued audio has played.
        const playing = reply;
        if (playing && playing.responseId === event.response.id) {
          playing.done = true;
          await playing.player.finished();
          if (reply !== playing || status.dataset.agentSpeaking !== 'true') break;
        }
        status.dataset.agentSpeaking = 'false';
        setStatus(status, 'Your turn.', 'ok');
        break;
      }
      case 'conversation.item.retrieved': {
        const li = truncatedBubbles.get(event.item.id);
        const part = event.item.content?.[0];
        if (li && part) li.textContent = part.transcript ?? part.text ?? li.textContent;
        truncatedBubbles.delete(event.item.id);
        break;
      }
      case 'error':
        lastError = AVATAR_ERRORS[event.error?.code] ?? `Error: ${event.error?.message ?? 'unknown'}`;
        status.dataset.errorCode = event.error?.code ?? '';
        if (!sessionCreated) {
          // The session's first configuration was refused: the server closes it; hang up at once
          // rather than wait for the peer connection to notice.
          refused = true;
          lastError = `${lastError} (the call ended)`;
          if (call) void close();
        }
        setStatus(status, lastError, 'error');
        break;
      case 'session.idle_timeout':
      case 'session.max_duration_reached':
        setStatus(
          status,
          event.type === 'session.idle_timeout' ? 'Closed after 5 minutes without speech.' : 'The session reached its maximum duration.',
        );
        break;
    }
  };

  onAsync(connect, 'click', async () => {
    connect.disabled = true;
    // A new session is a new conversation.
    transcript.replaceChildren();
    latencyList.replaceChildren();
    log.replaceChildren();
    userBubbles.clear();
    replyBubbles.clear();
    sentMs = 0;
    sentAt.length = 0;
    turnEndedAt = null;
    lastError = null;
    refused = false;
    sessionCreated = false;
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
      ws = socket;
      socket.onopen = () => sendEvent({ type: 'session.update', session: session() });
      socket.onmessage = (m) => void onServerEvent(JSON.parse(String(m.data)) as ServerEvent);
      socket.onclose = (e) => {
        if (ws === socket) void close();
        setStatus(status, `Disconnected (${e.code}${e.reason ? ` ${e.reason}` : ''}).`, e.code === 1000 ? '' : 'error');
      };
    } catch (err) {
      hideVideo();
      setStatus(status, describeError(err), 'error');
      connect.disabled = false;
      syncAvatarControls();
    }
  });

  disconnect.addEventListener('click', () => void close());

  onAsync(micButton, 'click', async () => {
    if (call) {
      // WebRTC: the microphone is the call's track; the button turns it on and off.
      if (call.micOn) return stopMic();
      call.rtc.setMicEnabled(true);
      call.micOn = true;
      micButton.setAttribute('aria-pressed', 'true');
      micButton.textContent = '■ Stop microphone';
      setStatus(status, 'Microphone on: talk, then pause.', 'ok');
      return;
    }
    if (mic) return stopMic();
    micButton.disabled = true;
    try {
      mic = await MicCapture.start(RATE, ({ pcm, level: rms }) => {
        const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
        sendEvent({ type: 'input_audio_buffer.append', audio: base64FromBytes(bytes) });
        sentMs += (pcm.length / RATE) * 1000;
        sentAt.push({ ms: sentMs, at: performance.now() });
        if (sentAt.length > 3000) sentAt.splice(0, 1000);
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
    bubble('user', text);
    sendEvent({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    sendEvent({ type: 'response.create' });
    turnEndedAt = performance.now();
    turnKind = 'typed';
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
