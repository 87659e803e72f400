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
 * The code asides beside each panel. The key is shown as $KEY (curl) and process.env.KEY (JavaScript),
 * as in the README (`export KEY=<your key>`, said above each code box), never the real one, so a
 * screenshot or a copied snippet leaks nothing.
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
