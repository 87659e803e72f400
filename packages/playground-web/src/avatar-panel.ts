import { api, apiJson, describeError, jsonRequest } from './api.js';
import { catalog } from './catalog.js';
import { auth, baseUrl, JS_KEY, json, jsAuth, shellQuote, showCode } from './code-samples.js';
import { byId, element, onClickBusy, readFileAsDataUrl, setStatus } from './dom.js';
import { initFacePicker } from './face-picker.js';
import { playStream } from './mse-player.js';

interface Video {
  id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  progress: number;
  size: string;
  created_at: number;
  error?: string;
}

const HISTORY_KEY = 'svc.playground.videos';
const POLL_MS = 1000;

/**
 * Avatar video, written against the interface's Video sections: live playback of
 * POST /v1/videos/stream through Media Source Extensions while it is generated, with a fallback
 * (poll GET /v1/videos/{id}, then download) where the browser cannot play the stream's codecs,
 * and the asynchronous job path with its progress.
 */
export function initAvatarPanel(hasVideoApi: () => boolean): { refresh(): void } {
  const availability = byId('avatar-availability');
  const image = byId<HTMLInputElement>('avatar-image');
  const imagePreview = byId<HTMLImageElement>('avatar-image-preview');
  const text = byId<HTMLTextAreaElement>('avatar-text');
  const audioFile = byId<HTMLInputElement>('avatar-audio');
  const size = byId<HTMLSelectElement>('avatar-size');
  const voice = byId<HTMLSelectElement>('avatar-voice');
  const streamButton = byId<HTMLButtonElement>('avatar-stream');
  const jobButton = byId<HTMLButtonElement>('avatar-job');
  const progress = byId<HTMLProgressElement>('avatar-progress');
  const status = byId('avatar-status');
  const video = byId<HTMLVideoElement>('avatar-video');
  const download = byId<HTMLAnchorElement>('avatar-download');
  const history = byId<HTMLUListElement>('avatar-history');
  catalog.onChange(() => catalog.fill(voice));

  const drive = () => (document.querySelector<HTMLInputElement>('input[name="avatar-drive"]:checked')?.value ?? 'text') as 'text' | 'audio';
  for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="avatar-drive"]')) {
    radio.addEventListener('change', () => {
      byId('avatar-text-field').hidden = drive() !== 'text';
      byId('avatar-audio-field').hidden = drive() !== 'audio';
    });
  }
  const picker = initFacePicker({ file: image, preview: imagePreview, samples: byId('avatar-samples') });
  /** The request the code box shows (the last one made, or the panel's default), with the face picked now. */
  let shown: { body: Record<string, unknown>; stream: boolean } = {
    body: {
      model: 'svc-avatar',
      size: '640x640',
      ref_image: 'data:image/jpeg;base64,…',
      input_tts: { input: text.value, voice: 'default' },
    },
    stream: true,
  };
  const showVideoCode = (body = shown.body, stream = shown.stream) => {
    shown = { body, stream };
    showCode('avatar', videoCode(body, stream, picker.sampleUrl()));
  };
  picker.onChange(() => showVideoCode());

  /** The JSON body of both video endpoints; media inline as data URIs. */
  const requestBody = async (): Promise<Record<string, unknown>> => {
    const face = picker.face();
    if (!face) throw new Error('Choose a face photo first.');
    const body: Record<string, unknown> = { model: 'svc-avatar', size: size.value, ref_image: await readFileAsDataUrl(face) };
    if (drive() === 'audio') {
      const a = audioFile.files?.[0];
      if (!a) throw new Error('Choose a speech audio file, or drive the video with text.');
      body.input = await readFileAsDataUrl(a);
    } else {
      body.input_tts = { input: text.value, voice: voice.value };
    }
    return body;
  };

  const setVideoBlob = (blob: Blob, id: string) => {
    const url = URL.createObjectURL(blob);
    video.src = url;
    video.hidden = false;
    download.href = url;
    download.download = `${id}.mp4`;
    download.hidden = false;
    void video.play().catch(() => undefined);
  };

  const remember = (v: Video) => {
    const list = loadHistory().filter((x) => x.id !== v.id);
    list.unshift(v);
    sessionStorage.setItem(HISTORY_KEY, JSON.stringify(list.slice(0, 20)));
    renderHistory();
  };

  const pollUntilDone = async (id: string): Promise<Video> => {
    progress.hidden = false;
    for (;;) {
      const v = await apiJson<Video>(`/v1/videos/${encodeURIComponent(id)}`);
      progress.value = v.progress;
      remember(v);
      setStatus(status, `${v.id}: ${v.status.replace('_', ' ')} · ${v.progress} %`);
      if (v.status === 'completed' || v.status === 'failed') return v;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };

  const fetchContent = async (id: string) => {
    const blob = await (await api(`/v1/videos/${encodeURIComponent(id)}/content`)).blob();
    setVideoBlob(blob, id);
  };

  onClickBusy(jobButton, async () => {
    try {
      const body = await requestBody();
      showVideoCode(body, false);
      setStatus(status, 'Creating the job…');
      const created = await apiJson<Video>('/v1/videos', jsonRequest('POST', body));
      remember(created);
      const done = await pollUntilDone(created.id);
      if (done.status === 'failed') return setStatus(status, `${done.id} failed: ${done.error ?? 'no reason given'}`, 'error');
      await fetchContent(done.id);
      setStatus(status, `${done.id} completed (${done.size}).`, 'ok');
    } catch (err) {
      setStatus(status, describeError(err), 'error');
    }
  });

  onClickBusy(streamButton, async () => {
    try {
      const body = await requestBody();
      showVideoCode(body, true);
      setStatus(status, 'Generating…');
      const started = performance.now();
      const res = await api('/v1/videos/stream', jsonRequest('POST', body));
      const id = res.headers.get('X-Video-Id') ?? 'video';
      const played = await playStream(res.body!, video, () => {
        status.dataset.firstFrameMs = String(Math.round(performance.now() - started));
        setStatus(status, `${id}: playing after ${status.dataset.firstFrameMs} ms while it is generated…`);
      });
      if (played) {
        download.hidden = true;
        setStatus(status, `${id}: stream complete. The MP4 is stored: Play under Past videos downloads it.`, 'ok');
      } else {
        // No MSE for these codecs: the body was read to the end (the server stores the video); fetch it whole.
        setStatus(status, `${id}: this browser cannot play the stream live; waiting for the stored MP4…`);
        const done = await pollUntilDone(id);
        if (done.status !== 'completed') return setStatus(status, `${id} failed: ${done.error ?? ''}`, 'error');
        await fetchContent(id);
        setStatus(status, `${id} completed.`, 'ok');
      }
      remember(await apiJson<Video>(`/v1/videos/${encodeURIComponent(id)}`));
    } catch (err) {
      setStatus(status, describeError(err), 'error');
    }
  });

  const renderHistory = () => {
    history.replaceChildren();
    const list = loadHistory();
    if (list.length === 0) history.append(element('li', { class: 'empty', text: 'No videos yet in this tab.' }));
    for (const v of list) {
      const li = element('li', {}, element('span', { class: 'name' }, `${v.status} · ${v.size ?? ''} `, element('code', { text: v.id })));
      if (v.status === 'completed') {
        const open = element('button', { type: 'button', class: 'secondary small', text: 'Play', 'aria-label': `Play ${v.id}` });
        onClickBusy(open, () => fetchContent(v.id).catch((err) => setStatus(status, describeError(err), 'error')));
        li.append(open);
      }
      history.append(li);
    }
  };

  const refresh = () => {
    const available = hasVideoApi();
    availability.textContent = available
      ? ''
      : 'This server does not offer avatar video yet (its API document has no /v1/videos routes). The panel is ready for when it does.';
    streamButton.disabled = !available;
    jobButton.disabled = !available;
    renderHistory();
  };
  showVideoCode();
  return { refresh };
}

function loadHistory(): Video[] {
  try {
    return JSON.parse(sessionStorage.getItem(HISTORY_KEY) ?? '[]') as Video[];
  } catch {
    return [];
  }
}

/**
 * The video request as code, multipart in both languages (the files as they are). curl uploads
 * face.jpg: the user's photo, or (`sample`: a sample photo picked) that photo downloaded from this
 * server first; JavaScript fetches the picked sample itself, so the box runs as it is.
 */
function videoCode(body: Record<string, unknown>, stream: boolean, sample: string | null = null): { curl: string; js: string } {
  const face = sample
    ? `# the sample photo you picked, saved as face.jpg:\ncurl -o face.jpg ${sample}\n`
    : '# face.jpg: your photo of a face\n';
  const endpoint = stream ? '/v1/videos/stream' : '/v1/videos';
  const tts = body.input_tts as { input: string; voice: string } | undefined;
  const jsFace = sample
    ? `form.set('ref_image', await (await fetch('${sample}')).blob(), 'face.jpg'); // the sample photo you picked`
    : `form.set('ref_image', faceFile); // faceFile: your photo of a face (a File from <input type="file">)`;
  const jsInput = tts
    ? `form.set('input_tts', JSON.stringify(${json(tts)}));`
    : `form.set('input', speechFile); // speechFile: the speech to animate (a File or recorded Blob)`;
  return {
    curl: stream
      ? `${face}# multipart uploads the files as they are
curl -N ${baseUrl}${endpoint} \\
  ${auth} \\
  -F ref_image=@face.jpg \\
  ${tts ? `-F input_tts=${shellQuote(JSON.stringify(tts))}` : '-F input=@speech.wav'} \\
  -F size=${String(body.size)} \\
  -D headers.txt -o live.mp4   # X-Video-Id is in headers.txt`
      : `${face}curl ${baseUrl}${endpoint} \\
  ${auth} \\
  -F ref_image=@face.jpg \\
  ${tts ? `-F input_tts=${shellQuote(JSON.stringify(tts))}` : '-F input=@speech.wav'} \\
  -F size=${String(body.size)}
# -> {"id":"video_…","status":"queued",…}; then poll and download:
curl ${baseUrl}/v1/videos/video_… ${auth}
curl ${baseUrl}/v1/videos/video_…/content ${auth} -o avatar.mp4`,
    js: `${JS_KEY}

// multipart uploads the files as they are
const form = new FormData();
${jsFace}
${jsInput}
form.set('size', '${String(body.size)}');
const res = await fetch('${baseUrl}${endpoint}', { method: 'POST', headers: { ${jsAuth} }, body: form });
if (!res.ok) throw new Error((await res.json()).error.message);
${
  stream
    ? `const videoId = res.headers.get('X-Video-Id');
// Append res.body's chunks to a MediaSource SourceBuffer
// (type from the init segment, e.g. 'video/mp4; codecs="avc1.42C01E, mp4a.40.2"')`
    : `const { id } = await res.json();
let video;
do {
  await new Promise((r) => setTimeout(r, 1000));
  video = await (await fetch(\`${baseUrl}/v1/videos/\${id}\`, { headers: { ${jsAuth} } })).json();
} while (video.status === 'queued' || video.status === 'in_progress');`
}`,
  };
}
