/** Small DOM helpers shared by the panels. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`The page has no #${id}`);
  return el as T;
}

export type StatusKind = '' | 'ok' | 'error';

export function setStatus(el: HTMLElement, text: string, kind: StatusKind = ''): void {
  el.textContent = text;
  el.classList.toggle('ok', kind === 'ok');
  el.classList.toggle('error', kind === 'error');
}

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<string, string>> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined) continue;
    if (name === 'text') el.textContent = value;
    else el.setAttribute(name, value);
  }
  el.append(...children);
  return el;
}

/**
 * Adds an async event listener. The DOM ignores a listener's promise, so a rejection the handler does
 * not catch itself is reported here rather than left unhandled.
 */
export function onAsync<E extends Event = Event>(target: EventTarget, type: string, handler: (event: E) => Promise<unknown>): void {
  target.addEventListener(type, (event) => {
    handler(event as E).catch((err: unknown) => console.error(err));
  });
}

/** Runs an async click handler with the button disabled, so a double click sends one request. */
export function onClickBusy(button: HTMLButtonElement, handler: () => Promise<void>): void {
  onAsync(button, 'click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    try {
      await handler();
    } finally {
      button.disabled = false;
    }
  });
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}

export function base64FromBytes(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}

export function bytesFromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function readFileAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the file'));
    reader.readAsDataURL(file);
  });
}
