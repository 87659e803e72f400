import { apiJson } from './api.js';
import { element } from './dom.js';

export interface Preset {
  voice: string;
  language: string;
  gender: string;
  engine: string;
  description: string;
}

export interface Voice {
  voice: string;
  description?: string | null;
  ref_text?: string;
  created_at: string | number;
}

/**
 * The voices a request may name: the presets (grouped by language) and the key's own voices.
 * Every voice picker on the page is filled from here and refreshed when the list changes.
 */
class VoiceCatalog {
  presets: Preset[] = [];
  own: Voice[] = [];
  private readonly listeners = new Set<() => void>();

  async load(): Promise<void> {
    const [presets, own] = await Promise.all([
      apiJson<{ data: Preset[] }>('/v1/audio/presets'),
      apiJson<{ data: Voice[] }>('/v1/audio/voices?limit=100'),
    ]);
    this.presets = presets.data;
    this.own = own.data;
    this.changed();
  }

  async reloadOwn(): Promise<void> {
    this.own = (await apiJson<{ data: Voice[] }>('/v1/audio/voices?limit=100')).data;
    this.changed();
  }

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** Refills a <select> keeping its choice when it still exists. */
  fill(select: HTMLSelectElement): void {
    const chosen = select.value;
    select.replaceChildren();
    select.append(element('option', { value: 'default', text: 'default (follows the language)' }));
    if (this.own.length > 0) {
      const group = element('optgroup', { label: 'Your voices' });
      for (const v of this.own)
        group.append(element('option', { value: v.voice, text: v.description ? `${v.description} (${v.voice})` : v.voice }));
      select.append(group);
    }
    const names = new Intl.DisplayNames(['en'], { type: 'language' });
    const byLanguage = new Map<string, Preset[]>();
    for (const p of this.presets) {
      if (p.voice === 'default') continue;
      const list = byLanguage.get(p.language) ?? [];
      list.push(p);
      byLanguage.set(p.language, list);
    }
    const label = (code: string) => {
      try {
        return `${names.of(code) ?? code} (${code})`;
      } catch {
        return code;
      }
    };
    const languages = [...byLanguage.keys()].sort((a, b) => {
      // English first: the voices that sound best here (Flite), then alphabetical by name.
      const ea = a.startsWith('en') ? 0 : 1;
      const eb = b.startsWith('en') ? 0 : 1;
      return ea - eb || label(a).localeCompare(label(b));
    });
    for (const lang of languages) {
      const group = element('optgroup', { label: label(lang) });
      for (const p of byLanguage.get(lang)!) {
        group.append(element('option', { value: p.voice, text: `${p.voice} · ${p.gender}, ${p.engine}` }));
      }
      select.append(group);
    }
    select.value = [...select.options].some((o) => o.value === chosen) ? chosen : 'default';
  }
}

export const catalog = new VoiceCatalog();
