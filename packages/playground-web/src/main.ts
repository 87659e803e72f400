import { apiJson, apiKey, describeError } from './api.js';
import { initAvatarPanel } from './avatar-panel.js';
import { catalog } from './catalog.js';
import { initCodeSamples } from './code-samples.js';
import { byId, onAsync, setStatus } from './dom.js';
import { initRealtimePanel } from './realtime-panel.js';
import { initSpeechPanel } from './speech-panel.js';
import { initVoicesPanel } from './voices-panel.js';

/** The playground: sign-in with a key, tabs, and one module per panel. */
function initTabs(): void {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('.tabs [role="tab"]')];
  const select = (tab: HTMLButtonElement, focus: boolean) => {
    for (const t of tabs) {
      const selected = t === tab;
      t.setAttribute('aria-selected', String(selected));
      t.tabIndex = selected ? 0 : -1;
      byId(t.getAttribute('aria-controls')!).hidden = !selected;
    }
    if (focus) tab.focus();
    history.replaceState(null, '', `#${tab.id.replace('tab-', '')}`);
  };
  for (const tab of tabs) {
    tab.addEventListener('click', () => select(tab, false));
    tab.addEventListener('keydown', (e) => {
      const i = tabs.indexOf(tab);
      const next = { ArrowRight: i + 1, ArrowLeft: i - 1 + tabs.length, Home: 0, End: tabs.length - 1 }[e.key];
      if (next === undefined) return;
      e.preventDefault();
      select(tabs[next % tabs.length]!, true);
    });
  }
  const fromHash = tabs.find((t) => t.id === `tab-${location.hash.slice(1)}`);
  if (fromHash) select(fromHash, false);
}

async function main(): Promise<void> {
  initTabs();
  initCodeSamples();
  initSpeechPanel();
  initVoicesPanel();
  initRealtimePanel();
  let videoApi = false;
  const avatar = initAvatarPanel(() => videoApi);

  const form = byId<HTMLFormElement>('signin');
  const keyInput = byId<HTMLInputElement>('api-key');
  const signedIn = byId('signed-in');
  const hint = byId('signin-hint');
  const controls = [...document.querySelectorAll<HTMLElement>('.panel .controls')];

  const showSignedIn = (yes: boolean) => {
    form.hidden = yes;
    signedIn.hidden = !yes;
    hint.hidden = yes;
    for (const c of controls) c.inert = !yes;
    const key = apiKey.get();
    byId('key-hint').textContent = key ? `${key.slice(0, 10)}…` : '';
  };

  /** Checks the key by loading what the pickers need; a refused key is forgotten at once. */
  const start = async () => {
    try {
      await catalog.load();
      const doc = await apiJson<{ paths: Record<string, unknown> }>('/v1/openapi.json');
      videoApi = Object.hasOwn(doc.paths, '/v1/videos/stream');
      showSignedIn(true);
      avatar.refresh();
    } catch (err) {
      apiKey.clear();
      showSignedIn(false);
      hint.hidden = false;
      setStatus(hint, `That key was refused: ${describeError(err)}`, 'error');
    }
  };

  onAsync(form, 'submit', async (e) => {
    e.preventDefault();
    const key = keyInput.value.trim();
    if (!key) return;
    apiKey.set(key);
    keyInput.value = '';
    await start();
  });
  byId('signout').addEventListener('click', () => {
    apiKey.clear();
    location.reload();
  });

  showSignedIn(false);
  avatar.refresh();
  if (apiKey.get()) await start();
  document.body.dataset.ready = 'true';
}

void main();
