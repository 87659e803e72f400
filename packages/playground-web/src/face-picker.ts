import { element } from './dom.js';

export interface FacePickerElements {
  /** The file input for an uploaded photo. */
  file: HTMLInputElement;
  /** Where the chosen face is shown. */
  preview: HTMLImageElement;
  /** The group the sample photo buttons go in (its parent is hidden when the server has none). */
  samples: HTMLElement;
}

export interface FacePicker {
  /** The chosen photo, or null. */
  face(): Blob | null;
  /** The chosen sample photo's URL on this server (absolute), or null (an upload, or none). */
  sampleUrl(): string | null;
  /** Forget the choice (voice only). */
  clear(): void;
  onChange(listener: (face: Blob | null) => void): void;
}

/**
 * A face photo chosen by upload or among the server's sample photos, with its preview: what
 * /v1/videos and a live avatar call take as `ref_image`. Used by the avatar video panel and by
 * the realtime panel's "Talk to the avatar".
 */
export function initFacePicker({ file, preview, samples }: FacePickerElements): FacePicker {
  let face: Blob | null = null;
  let sample: string | null = null;
  const listeners: Array<(face: Blob | null) => void> = [];
  const pressSample = (pressed: HTMLButtonElement | null) => {
    for (const b of samples.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === pressed));
  };
  const use = (blob: Blob | null) => {
    face = blob;
    if (preview.src.startsWith('blob:')) URL.revokeObjectURL(preview.src);
    if (blob) preview.src = URL.createObjectURL(blob);
    else preview.removeAttribute('src');
    preview.hidden = blob === null;
    for (const listener of listeners) listener(blob);
  };
  file.addEventListener('change', () => {
    const f = file.files?.[0];
    if (!f) return;
    pressSample(null);
    sample = null;
    use(f);
  });
  void loadSamples(samples, async (url, button) => {
    file.value = '';
    pressSample(button);
    sample = new URL(url, location.href).href;
    use(await (await fetch(url)).blob());
  });
  return {
    face: () => face,
    sampleUrl: () => (face ? sample : null),
    clear: () => {
      sample = null;
      file.value = '';
      pressSample(null);
      use(null);
    },
    onChange: (listener) => listeners.push(listener),
  };
}

/** The sample photos this server ships (none when the face detector's package is absent). */
async function loadSamples(container: HTMLElement, choose: (url: string, button: HTMLButtonElement) => Promise<void>): Promise<void> {
  const res = await fetch('/playground/samples.json');
  if (!res.ok) return;
  const { faces } = (await res.json()) as { faces: string[] };
  for (const [i, url] of faces.entries()) {
    const button = element(
      'button',
      { type: 'button', 'aria-pressed': 'false', title: `Sample photo ${i + 1}` },
      element('img', { src: url, alt: `Sample photo ${i + 1}`, loading: 'lazy' }),
    );
    button.addEventListener('click', () => void choose(url, button));
    container.append(button);
  }
  container.parentElement!.hidden = faces.length === 0;
}
