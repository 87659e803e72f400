import { apiJson, describeError, jsonRequest, WS_URL } from './api.js';
import { catalog } from './catalog.js';
import { auth, baseUrl, json, showCode } from './code-samples.js';
import { base64FromBytes, byId, bytesFromBase64, element, setStatus } from './dom.js';
import { MicCapture } from './mic-capture.js';
import { PcmStreamPlayer, playbackContext } from './pcm-player.js';

/** Both directions use the service's default realtime format: PCM16 mono at 24 kHz. */
const RATE = 24000;
const MODEL = 'svc-realtime';
const LOG_LIMIT = 300;

type ServerEvent = { type: string; [field: string]: any };

/**
 * A realtime session from the browser, as the spec intends: an ephemeral client secret minted with
 * the API key (a same-origin REST call), then the WebSocket authenticated by the subprotocol
 * `svc-client-secret.<secret>`; the API key itself never goes into the socket.
 */
export function initRealtimePanel(): void {
  const voice = byId<HTMLSelectElement>('rt-voice');
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
  catalog.onChange(() => catalog.fill(voice));

  let ws: WebSocket | null = null;
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

  const session = () => ({
    type: 'realtime',
    model: MODEL,
    instructions: instructions.value,
    output_modalities: [mode.value],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: RATE },
        turn_detection: { type: 'server_vad', silence_duration_ms: 500 },
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
    const shown = JSON.stringify(event, (k, v) => ((k === 'audio' || k === 'delta') && typeof v === 'string' && v.length > 60 ? `${v.slice(0, 24)}… (${v.length} chars)` : v));
    log.append(element('li', { class: direction, text: `${direction === 'in' ? '↓' : '↑'} ${shown}` }));
    while (log.childElementCount > LOG_LIMIT) log.firstElementChild!.remove();
    log.scrollTop = log.scrollHeight;
  };

  const sendEvent = (event: ServerEvent) => {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(event));
    logEvent('out', event);
  };

  const setConnected = (connected: boolean) => {
    connect.disabled = connected;
    disconnect.disabled = !connected;
    micButton.disabled = !connected;
    textInput.disabled = !connected;
    send.disabled = !connected;
  };

  const bubble = (role: 'user' | 'assistant', text: string) => {
    const li = element('li', { class: role, text });
    transcript.append(li);
    return li;
  };

  const recordLatency = (soundAt: number) => {
    if (turnEndedAt === null) return;
    const ms = Math.max(0, Math.round(soundAt - turnEndedAt));
    latencyList.append(element('li', { 'data-latency-ms': String(ms), text: `${turnKind} turn: ${ms} ms to first ${mode.value === 'audio' ? 'audio' : 'text'}` }));
    turnEndedAt = null;
  };

  const stopMic = async () => {
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
    setConnected(false);
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
        setStatus(status, `Connected · session ${event.session?.id ?? ''}`, 'ok');
        setConnected(true);
        break;
      case 'session.updated':
        setStatus(status, 'Session updated.', 'ok');
        break;
      case 'input_audio_buffer.speech_started':
        bargeIn();
        userBubbles.set(event.item_id, bubble('user', '…'));
        setStatus(status, 'Listening…');
        break;
      case 'input_audio_buffer.speech_stopped': {
        // The end of speech is when the audio at audio_end_ms left this page, not when the
        // server, after its silence window, said so.
        const sent = sentAt.find((s) => s.ms >= event.audio_end_ms);
        turnEndedAt = sent?.at ?? performance.now();
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
          current = { itemId: event.item_id, responseId: event.response_id, player: new PcmStreamPlayer(await playbackContext(), RATE), done: false };
          reply = current;
        }
        const soundAt = current.player.push(bytesFromBase64(event.delta));
        if (soundAt !== null) recordLatency(soundAt);
        status.dataset.agentSpeaking = 'true';
        setStatus(status, 'Agent speaking… (talk to interrupt)');
        break;
      }
      case 'response.done': {
        const li = replyBubbles.get(event.response.id);
        if (event.response.status === 'cancelled') li?.classList.add('cancelled');
        if (event.response.status === 'cancelled') {
          setStatus(status, 'Reply interrupted.', 'ok');
          break;
        }
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
      case 'conversation.item.truncated':
        // Show what the conversation now holds: the sentences the user heard.
        sendEvent({ type: 'conversation.item.retrieve', item_id: event.item_id });
        break;
      case 'conversation.item.retrieved': {
        const li = truncatedBubbles.get(event.item.id);
        const part = event.item.content?.[0];
        if (li && part) li.textContent = part.transcript ?? part.text ?? li.textContent;
        truncatedBubbles.delete(event.item.id);
        break;
      }
      case 'error':
        setStatus(status, `Error: ${event.error?.message ?? 'unknown'}`, 'error');
        break;
      case 'session.idle_timeout':
      case 'session.max_duration_reached':
        setStatus(status, event.type === 'session.idle_timeout' ? 'Closed after 5 minutes without speech.' : 'The session reached its maximum duration.');
        break;
    }
  };

  connect.addEventListener('click', async () => {
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
    setStatus(status, 'Minting a client secret…');
    try {
      await playbackContext(); // inside the click, so replies may play
      const secret = await apiJson<{ value: string; expires_at: number }>(
        '/v1/realtime/client_secrets',
        jsonRequest('POST', { expires_after: { seconds: 600 } }),
      );
      showCode('realtime', realtimeCode(session()));
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
      setStatus(status, describeError(err), 'error');
      connect.disabled = false;
    }
  });

  disconnect.addEventListener('click', () => void close());

  micButton.addEventListener('click', async () => {
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
      micButton.disabled = !ws;
    }
  });

  textForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = textInput.value.trim();
    if (!text || !ws) return;
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
      if (!ws) return;
      sendEvent({ type: 'session.update', session: session() });
      showCode('realtime', realtimeCode(session()));
    });
  }

  showCode('realtime', realtimeCode(session()));
}

function realtimeCode(session: Record<string, unknown>): { curl: string; js: string } {
  return {
    curl: `# 1. With the API key (server side), mint a short-lived client secret:
curl ${baseUrl}/v1/realtime/client_secrets \\
  ${auth} \\
  -H "Content-Type: application/json" \\
  -d '{"expires_after":{"seconds":600}}'
# -> {"object":"realtime.client_secret","value":"svc-eph-…","expires_at":…,"session":{…}}

# 2. The browser connects with the secret (JavaScript tab). From a terminal,
#    a server-side client may send the API key as a Bearer header instead.`,
    js: `// Server side: mint the secret with the API key (never ship the key to a browser)
const { value } = await (await fetch('${baseUrl}/v1/realtime/client_secrets', {
  method: 'POST',
  headers: { Authorization: \`Bearer \${SVC_API_KEY}\`, 'Content-Type': 'application/json' },
  body: JSON.stringify({ expires_after: { seconds: 600 } }),
})).json();

// Browser: the secret travels in a subprotocol
const ws = new WebSocket('${WS_URL}/v1/realtime?model=${MODEL}',
  ['realtime', \`svc-client-secret.\${value}\`]);
ws.onopen = () => ws.send(JSON.stringify({
  type: 'session.update',
  session: ${json(session).replace(/\n/g, '\n  ')},
}));
ws.onmessage = (m) => {
  const event = JSON.parse(m.data);
  if (event.type === 'response.output_audio.delta') {
    // base64 PCM16 24 kHz mono: schedule it with Web Audio
  }
};
// Microphone: PCM16 24 kHz mono chunks, base64, as they are captured
// ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: base64Chunk }));`,
  };
}
