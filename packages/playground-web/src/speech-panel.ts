import { api, describeError, jsonRequest } from './api.js';
import { catalog } from './catalog.js';
import { auth, baseUrl, JS_KEY, json, jsAuth, shellQuote, showCode } from './code-samples.js';
import { byId, element, formatBytes, onClickBusy, setStatus } from './dom.js';
import { PcmStreamPlayer, playbackContext } from './pcm-player.js';
import { joinPcm, wavBlob } from './wav.js';

/** The service's pcm: 24 kHz, 16-bit, mono, little-endian. */
const PCM_RATE = 24000;

/** Tag buttons: a few values of each kind the engine understands (docs/speech.md lists them all). */
const TAGS = [
  '<|emotion:enthusiasm|>',
  '<|emotion:calm|>',
  '<|style:whisper|>',
  '<|style:news|>',
  '<|prosody:pause|>',
  '<|prosody:slow|>',
  '<|prosody:fast|>',
  '<|prosody:reset|>',
  '<|sfx:chime|>',
  '<|sfx:applause|>',
];

const EXTENSIONS: Record<string, string> = { mp3: 'mp3', wav: 'wav', opus: 'ogg', aac: 'aac', flac: 'flac', pcm: 'pcm' };

interface PlaygroundLimits {
  speech: { max_input_chars: number };
}

/** The server's limits for the page, or null when it cannot say (the API still enforces them). */
async function fetchLimits(): Promise<PlaygroundLimits | null> {
  try {
    const res = await fetch('/playground/limits.json');
    return res.ok ? ((await res.json()) as PlaygroundLimits) : null;
  } catch {
    return null;
  }
}

export function initSpeechPanel(): void {
  const input = byId<HTMLTextAreaElement>('speech-input');
  const count = byId('speech-count');
  const voice = byId<HTMLSelectElement>('speech-voice');
  const format = byId<HTMLSelectElement>('speech-format');
  const speed = byId<HTMLInputElement>('speech-speed');
  const speedValue = byId<HTMLOutputElement>('speech-speed-value');
  const audio = byId<HTMLAudioElement>('speech-audio');
  const download = byId<HTMLAnchorElement>('speech-download');
  const status = byId('speech-status');
  let objectUrl: string | null = null;
  let player: PcmStreamPlayer | null = null;

  // The limit comes from the server (/playground/limits.json), which applies it to every request.
  let maxChars: number | null = null;
  const updateCount = () => (count.textContent = `${[...input.value].length}${maxChars === null ? '' : ` / ${maxChars}`}`);
  input.addEventListener('input', updateCount);
  updateCount();
  void fetchLimits().then((limits) => {
    if (!limits) return;
    maxChars = limits.speech.max_input_chars;
    input.maxLength = maxChars;
    updateCount();
  });
  speed.addEventListener('input', () => (speedValue.value = `${Number(speed.value).toFixed(2)}×`));

  const tags = byId('tag-buttons');
  for (const tag of TAGS) {
    const b = element('button', { type: 'button', text: tag, title: `Insert ${tag} at the cursor` });
    b.addEventListener('click', () => {
      const at = input.selectionStart ?? input.value.length;
      input.setRangeText(tag, at, input.selectionEnd ?? at, 'end');
      input.focus();
      updateCount();
    });
    tags.append(b);
  }
  catalog.onChange(() => catalog.fill(voice));

  const request = (stream: boolean): Record<string, unknown> => {
    const body: Record<string, unknown> = { input: input.value, voice: voice.value };
    if (stream) return { ...body, response_format: 'pcm', stream: true };
    body.response_format = format.value;
    if (Number(speed.value) !== 1) body.speed = Number(speed.value);
    return body;
  };

  /** A new request starts: the result area (player, download) shows only what it brings, or its error. */
  const clearResult = () => {
    player?.stop();
    player = null;
    audio.pause();
    audio.removeAttribute('src');
    audio.load();
    audio.hidden = true;
    download.hidden = true;
    download.removeAttribute('href');
    if (objectUrl) URL.revokeObjectURL(objectUrl);
    objectUrl = null;
  };

  const offerDownload = (blob: Blob, name: string) => {
    if (objectUrl) URL.revokeObjectURL(objectUrl);
    objectUrl = URL.createObjectURL(blob);
    download.href = objectUrl;
    download.download = name;
    download.textContent = `Download ${name}`;
    download.hidden = false;
  };

  onClickBusy(byId<HTMLButtonElement>('speech-play'), async () => {
    clearResult();
    const body = request(false);
    showCode('speech', speechCode(body, false));
    setStatus(status, 'Synthesizing…');
    const started = performance.now();
    try {
      const res = await api('/v1/audio/speech', jsonRequest('POST', body));
      const blob = await res.blob();
      const ms = Math.round(performance.now() - started);
      const fmt = String(body.response_format);
      offerDownload(blob, `speech.${EXTENSIONS[fmt] ?? fmt}`);
      if (fmt === 'pcm') {
        // Raw samples have no container an <audio> element could read: play them with Web Audio.
        audio.hidden = true;
        player = new PcmStreamPlayer(await playbackContext(), PCM_RATE);
        player.push(new Uint8Array(await blob.arrayBuffer()));
      } else {
        audio.src = objectUrl!;
        audio.hidden = false;
        await audio.play().catch(() => undefined); // autoplay may be refused; the controls remain
      }
      setStatus(status, `Ready in ${ms} ms · ${formatBytes(blob.size)} of ${res.headers.get('Content-Type') ?? fmt}`, 'ok');
    } catch (err) {
      setStatus(status, describeError(err), 'error');
    }
  });

  onClickBusy(byId<HTMLButtonElement>('speech-stream'), async () => {
    clearResult();
    const body = request(true);
    showCode('speech', speechCode(body, true));
    delete status.dataset.firstSoundMs;
    const notes = Number(speed.value) !== 1 ? ' (speed is not applied when streaming)' : '';
    setStatus(status, `Streaming…${notes}`);
    const ctx = await playbackContext();
    const started = performance.now();
    const p = (player = new PcmStreamPlayer(ctx, PCM_RATE));
    const chunks: Uint8Array[] = [];
    try {
      const res = await api('/v1/audio/speech', jsonRequest('POST', body));
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        p.push(value);
        if (chunks.length === 1) {
          const first = Math.round(p.firstSoundAt! - started);
          status.dataset.firstSoundMs = String(first);
          setStatus(status, `First sound after ${first} ms · streaming…${notes}`);
        }
      }
      const samples = joinPcm(chunks);
      offerDownload(wavBlob(samples, PCM_RATE), 'speech-stream.wav');
      setStatus(
        status,
        `First sound after ${status.dataset.firstSoundMs} ms · ${(samples.length / PCM_RATE).toFixed(1)} s of audio in ${chunks.length} chunks, complete after ${Math.round(performance.now() - started)} ms${notes}`,
        'ok',
      );
    } catch (err) {
      p.stop();
      setStatus(status, describeError(err), 'error');
    }
  });

  showCode('speech', speechCode(request(false), false));
}

function speechCode(body: Record<string, unknown>, stream: boolean): { curl: string; js: string } {
  const out = stream ? 'speech.pcm' : `speech.${EXTENSIONS[String(body.response_format)] ?? 'mp3'}`;
  const curl = `curl ${stream ? '-N ' : ''}${baseUrl}/v1/audio/speech \\
  ${auth} \\
  -H "Content-Type: application/json" \\
  -d ${shellQuote(JSON.stringify(body))} \\
  -o ${out}${stream ? `\n\n# play while it downloads (24 kHz mono s16le):\n# curl ... | ffplay -f s16le -ar 24000 -ac 1 -nodisp -` : ''}`;
  const js = stream
    ? `${JS_KEY}

// Streamed PCM (24 kHz, 16-bit mono LE) played with Web Audio as it arrives
const res = await fetch('${baseUrl}/v1/audio/speech', {
  method: 'POST',
  headers: { ${jsAuth}, 'Content-Type': 'application/json' },
  body: JSON.stringify(${json(body, 2)}),
});
if (!res.ok) throw new Error((await res.json()).error.message);
const ctx = new AudioContext();
let at = ctx.currentTime;
const reader = res.body.getReader();
for (;;) {
  const { done, value } = await reader.read();
  if (done) break;
  const pcm = new Int16Array(value.buffer, value.byteOffset, value.byteLength >> 1);
  const buf = ctx.createBuffer(1, pcm.length, 24000);
  buf.getChannelData(0).set(Float32Array.from(pcm, (s) => s / 32768));
  const src = ctx.createBufferSource();
  src.buffer = buf;
  src.connect(ctx.destination);
  at = Math.max(at, ctx.currentTime);
  src.start(at);
  at += buf.duration;
}`
    : `${JS_KEY}

const res = await fetch('${baseUrl}/v1/audio/speech', {
  method: 'POST',
  headers: { ${jsAuth}, 'Content-Type': 'application/json' },
  body: JSON.stringify(${json(body, 2)}),
});
if (!res.ok) throw new Error((await res.json()).error.message);
const audio = new Audio(URL.createObjectURL(await res.blob()));
await audio.play();`;
  return { curl, js };
}
