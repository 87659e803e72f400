import { BASE_URL } from './api.js';
import { onAsync } from './dom.js';

/** A request shown as code: what the panel just did, in curl and in JavaScript (fetch). */
export interface CodeSample {
  curl: string;
  js: string;
}

type Lang = 'curl' | 'js';
let language: Lang = 'curl';
const current = new Map<string, CodeSample>();

/**
 * The code asides beside each panel. The key is never the real one, so a screenshot or a copied
 * snippet leaks nothing: curl sends $KEY, as in the README (`export KEY=<your key>`, said above the
 * code box); JavaScript runs in a browser, which has no process.env, so its first line is a KEY
 * constant the reader pastes the key into (said above the box too), or, for realtime, a client secret.
 */
export function initCodeSamples(): void {
  for (const group of document.querySelectorAll<HTMLElement>('.code-tabs')) {
    const tabs = [...group.querySelectorAll<HTMLButtonElement>('[data-lang]')];
    for (const tab of tabs) {
      tab.addEventListener('click', () => selectLanguage(tab.dataset.lang as Lang));
      tab.addEventListener('keydown', (e) => {
        if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
        const next = tabs[(tabs.indexOf(tab) + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]!;
        selectLanguage(next.dataset.lang as Lang);
        next.focus();
      });
    }
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-copy]')) {
    onAsync(button, 'click', async () => {
      const sample = current.get(button.dataset.copy!);
      if (!sample) return;
      try {
        await navigator.clipboard.writeText(sample[language]);
        button.textContent = 'Copied';
      } catch {
        button.textContent = 'Select and copy';
      }
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    });
  }
}

function selectLanguage(lang: Lang): void {
  language = lang;
  for (const tab of document.querySelectorAll<HTMLButtonElement>('.code-tabs [data-lang]')) {
    const selected = tab.dataset.lang === lang;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  // How to give the key, said above each code box, is the shown language's.
  for (const hint of document.querySelectorAll<HTMLElement>('.code-key [data-key-lang]')) hint.hidden = hint.dataset.keyLang !== lang;
  for (const [panel, sample] of current) render(panel, sample);
}

export function showCode(panel: string, sample: CodeSample): void {
  current.set(panel, sample);
  render(panel, sample);
}

function render(panel: string, sample: CodeSample): void {
  const code = document.querySelector<HTMLElement>(`[data-code="${panel}"]`);
  if (code) code.textContent = sample[language];
}

/** Single-quoted for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Pretty JSON for a snippet, its lines after the first indented by `indent` spaces (where it sits in the code). */
export function json(value: unknown, indent = 0): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${' '.repeat(indent)}`);
}

export const baseUrl = BASE_URL;
export const auth = '-H "Authorization: Bearer $KEY"';

/**
 * The first line of a JavaScript sample that sends the API key: a browser page has no process.env,
 * so the reader pastes the key there. The samples call this server from a page it serves (the
 * playground's console, say): the API sends no CORS headers, for a secret key.
 */
export const JS_KEY = "const KEY = '<your key>'; // paste your API key here";
/** The Authorization header of a JavaScript sample, with the key of JS_KEY. */
export const jsAuth = 'Authorization: `Bearer ${KEY}`';
