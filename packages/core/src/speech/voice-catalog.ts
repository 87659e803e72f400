import type { PresetVoice, SpeechSynthesizer } from './speech-synthesizer.js';

export const DEFAULT_VOICE_NAME = 'default';

/** Primary language subtag: 'en-us' -> 'en'. */
export const primaryLanguage = (tag: string): string => tag.toLowerCase().split(/[-_]/)[0]!;

/**
 * The preset voices of every configured engine under one namespace, and the rule that picks a
 * voice for `default`: the preferred engine's voice for the language when it has one (Flite's
 * `slt` for English: far more intelligible than espeak), otherwise any engine's voice whose
 * language matches, otherwise the fallback voice.
 */
export class VoiceCatalog {
  private readonly byName = new Map<string, PresetVoice>();
  private readonly engines = new Map<string, SpeechSynthesizer>();

  constructor(
    synthesizers: readonly SpeechSynthesizer[],
    private readonly preferredDefaults: Record<string, string> = { en: 'slt' },
    private readonly fallback = 'slt',
  ) {
    for (const s of synthesizers) {
      this.engines.set(s.engine, s);
      for (const v of s.voices()) if (!this.byName.has(v.name)) this.byName.set(v.name, v);
    }
  }

  list(): PresetVoice[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [DEFAULT_VOICE_NAME, ...this.byName.keys()];
  }

  /** True for `default` and every preset name: presets cannot be deleted and are never custom voices. */
  isPreset(name: string): boolean {
    return name === DEFAULT_VOICE_NAME || this.byName.has(name);
  }

  /** A listed preset, else a voice an engine resolves by name (a Kokoro blend). */
  get(name: string): PresetVoice | undefined {
    const listed = this.byName.get(name);
    if (listed) return listed;
    for (const engine of this.engines.values()) {
      const resolved = engine.resolveVoice?.(name);
      if (resolved) return resolved;
    }
    return undefined;
  }

  engineFor(voice: PresetVoice): SpeechSynthesizer {
    const engine = this.engines.get(voice.engine);
    if (!engine) throw new Error(`No engine '${voice.engine}' is configured for voice '${voice.name}'.`);
    return engine;
  }

  /** The voice `default` resolves to for a language (BCP-47 or ISO 639-1). */
  defaultFor(language: string | null): PresetVoice {
    const voices = this.list();
    if (language) {
      const lang = language.toLowerCase();
      const primary = primaryLanguage(lang);
      const preferred = this.preferredDefaults[lang] ?? this.preferredDefaults[primary];
      const preferredVoice = preferred ? this.byName.get(preferred) : undefined;
      if (preferredVoice) return preferredVoice;
      const exact = voices.find((v) => v.language === lang);
      if (exact) return exact;
      const samePrimary = voices.find((v) => primaryLanguage(v.language) === primary);
      if (samePrimary) return samePrimary;
    }
    const fallback = this.byName.get(this.fallback) ?? voices[0];
    if (!fallback) throw new Error('No speech engine offers any voice.');
    return fallback;
  }

  /** Number of distinct primary languages across all presets. */
  languageCount(): number {
    return new Set(this.list().map((v) => primaryLanguage(v.language))).size;
  }
}
