import { api, apiJson, describeError, jsonRequest } from './api.js';
import { catalog, type Voice } from './catalog.js';
import { auth, baseUrl, JS_KEY, json, jsAuth, shellQuote, showCode } from './code-samples.js';
import { byId, element, onAsync, onClickBusy, setStatus } from './dom.js';
import { recordMicrophone } from './mic-capture.js';
import { wavBlob } from './wav.js';

const RECORD_MS = 5000;
const RECORD_RATE = 24000;

export function initVoicesPanel(): void {
  const record = byId<HTMLButtonElement>('voice-record');
  const file = byId<HTMLInputElement>('voice-file');
  const preview = byId<HTMLAudioElement>('voice-preview');
  const text = byId<HTMLInputElement>('voice-text');
  const description = byId<HTMLInputElement>('voice-description');
  const register = byId<HTMLButtonElement>('voice-register');
  const status = byId('voice-status');
  const list = byId<HTMLUListElement>('voice-list');
  const tryAudio = byId<HTMLAudioElement>('voice-try-audio');
  let clip: { blob: Blob; name: string } | null = null;

  const useClip = (blob: Blob, name: string) => {
    clip = { blob, name };
    if (preview.src) URL.revokeObjectURL(preview.src);
    preview.src = URL.createObjectURL(blob);
    preview.hidden = false;
    register.disabled = false;
  };

  onAsync(record, 'click', async () => {
    if (record.getAttribute('aria-pressed') === 'true') return;
    record.setAttribute('aria-pressed', 'true');
    record.textContent = '● Recording…';
    setStatus(status, `Recording ${RECORD_MS / 1000} s from the microphone…`);
    try {
      const samples = await recordMicrophone(RECORD_MS, RECORD_RATE);
      useClip(wavBlob(samples, RECORD_RATE), 'recording.wav');
      file.value = '';
      setStatus(status, `Recorded ${(samples.length / RECORD_RATE).toFixed(1)} s. Type what it says, then register it.`, 'ok');
    } catch (err) {
      setStatus(status, `Microphone: ${describeError(err)}`, 'error');
    } finally {
      record.setAttribute('aria-pressed', 'false');
      record.textContent = '● Record 5 s';
    }
  });

  file.addEventListener('change', () => {
    const f = file.files?.[0];
    if (f) useClip(f, f.name);
  });

  onClickBusy(register, async () => {
    if (!clip) return;
    const form = new FormData();
    form.append('ref_audio', clip.blob, clip.name);
    if (text.value.trim()) form.append('ref_text', text.value.trim());
    if (description.value.trim()) form.append('description', description.value.trim());
    showCode('voices', registerCode(clip.name, text.value.trim(), description.value.trim()));
    setStatus(status, 'Registering…');
    try {
      const res = await api('/v1/audio/voices', { method: 'POST', body: form });
      const voice = (await res.json()) as Voice;
      // The same audio under this key is the voice already there, unchanged: its description stays.
      const existing = res.headers.get('X-Voice-Created') === 'false';
      setStatus(
        status,
        existing
          ? `This clip is already registered as ${voice.voice}; it was left as it was (its description and transcript unchanged).`
          : `Registered ${voice.voice}.`,
        'ok',
      );
      await catalog.reloadOwn();
    } catch (err) {
      setStatus(status, describeError(err), 'error');
    }
  });

  const renderList = () => {
    list.replaceChildren();
    if (catalog.own.length === 0) {
      list.append(element('li', { class: 'empty', text: 'No voices yet under this key.' }));
      return;
    }
    for (const v of catalog.own) {
      const tryButton = element('button', { type: 'button', class: 'secondary small', 'aria-label': `Try ${v.voice}`, text: 'Try' });
      const deleteButton = element('button', {
        type: 'button',
        class: 'secondary small',
        'aria-label': `Delete ${v.voice}`,
        text: 'Delete',
      });
      const item = element(
        'li',
        { 'data-voice': v.voice },
        element('span', { class: 'name' }, `${v.description || 'Untitled voice'} `, element('code', { text: v.voice })),
        tryButton,
        deleteButton,
      );
      onClickBusy(tryButton, async () => {
        const body = { input: 'Hello! This is how my registered voice sounds.', voice: v.voice, response_format: 'mp3' };
        showCode('voices', tryCode(body));
        setStatus(status, `Speaking with ${v.voice}…`);
        try {
          const blob = await (await api('/v1/audio/speech', jsonRequest('POST', body))).blob();
          if (tryAudio.src) URL.revokeObjectURL(tryAudio.src);
          tryAudio.src = URL.createObjectURL(blob);
          await tryAudio.play().catch(() => undefined);
          setStatus(status, `Playing ${v.voice}.`, 'ok');
        } catch (err) {
          setStatus(status, describeError(err), 'error');
        }
      });
      onClickBusy(deleteButton, async () => {
        if (!confirm(`Delete ${v.voice}? Speech requests naming it will fail.`)) return;
        showCode('voices', deleteCode(v.voice));
        try {
          await api(`/v1/audio/voices/${encodeURIComponent(v.voice)}`, { method: 'DELETE' });
          setStatus(status, `Deleted ${v.voice}.`, 'ok');
          await catalog.reloadOwn();
        } catch (err) {
          setStatus(status, describeError(err), 'error');
        }
      });
      list.append(item);
    }
  };
  catalog.onChange(renderList);
  showCode('voices', listCode());
}

function registerCode(name: string, refText: string, description: string): { curl: string; js: string } {
  const fields = [`  -F "ref_audio=@${name}"`];
  if (refText) fields.push(`  -F ref_text=${shellQuote(refText)}`);
  if (description) fields.push(`  -F description=${shellQuote(description)}`);
  return {
    curl: `curl ${baseUrl}/v1/audio/voices \\\n  ${auth} \\\n${fields.join(' \\\n')}`,
    js: `${JS_KEY}

// clipBlob: your clip (a Blob or File: a recording, or an <input type="file">'s file)
const form = new FormData();
form.append('ref_audio', clipBlob, ${JSON.stringify(name)});${refText ? `\nform.append('ref_text', ${JSON.stringify(refText)});` : ''}${description ? `\nform.append('description', ${JSON.stringify(description)});` : ''}
const res = await fetch('${baseUrl}/v1/audio/voices', {
  method: 'POST',
  headers: { ${jsAuth} },
  body: form,
});
const voice = await res.json(); // { voice: 'voice_…', ref_text, description, created_at }`,
  };
}

function tryCode(body: Record<string, unknown>): { curl: string; js: string } {
  return {
    curl: `curl ${baseUrl}/v1/audio/speech \\\n  ${auth} \\\n  -H "Content-Type: application/json" \\\n  -d ${shellQuote(JSON.stringify(body))} \\\n  -o try.mp3`,
    js: `${JS_KEY}

const res = await fetch('${baseUrl}/v1/audio/speech', {
  method: 'POST',
  headers: { ${jsAuth}, 'Content-Type': 'application/json' },
  body: JSON.stringify(${json(body, 2)}),
});
await new Audio(URL.createObjectURL(await res.blob())).play();`,
  };
}

function deleteCode(voice: string): { curl: string; js: string } {
  return {
    curl: `curl -X DELETE ${baseUrl}/v1/audio/voices/${voice} \\\n  ${auth}`,
    js: `${JS_KEY}

await fetch('${baseUrl}/v1/audio/voices/${voice}', {
  method: 'DELETE',
  headers: { ${jsAuth} },
}); // { voice_id, object: 'voice', deleted: true }`,
  };
}

function listCode(): { curl: string; js: string } {
  return {
    curl: `curl ${baseUrl}/v1/audio/voices \\\n  ${auth}`,
    js: `${JS_KEY}

const res = await fetch('${baseUrl}/v1/audio/voices', {
  headers: { ${jsAuth} },
});
const { data } = await res.json(); // [{ voice, description, created_at }, …]`,
  };
}
