import { VoiceLanguageUnsupportedError } from '../shared/errors.js';
import { chooseAliasTarget, OPENAI_VOICE_NAMES, type OpenAiVoiceName } from './openai-voice-aliases.js';
import type { PresetVoice, SpeechSynthesizer } from './speech-synthesizer.js';

export const DEFAULT_VOICE_NAME = 'default';

/** Primary language subtag: 'en-us' -> 'en'. */
export const primaryLanguage = (tag: string): string => tag.toLowerCase().split(/[-_]/)[0]!;

/** An OpenAI voice name and the installed preset it stands for in English. */
export interface VoiceAlias extends OpenAiVoiceName {
  target: PresetVoice;
}

/** The language an alias is listed for; other languages choose again (see `resolve`). */
const ALIAS_LANGUAGE = 'en';

/**
 * The preset voices of every configured engine under one namespace, and the rule that picks a
 * voice for `default`: the preferred engine's voice for the language when it has one (Flite's
 * `slt` for English: far more intelligible than espeak), otherwise any engine's voice whose
 * language matches, otherwise the fallback voice. OpenAI's voice names (`alloy`, `nova`, ...) are
 * presets too, aliasing the best installed voice of their gender (openai-voice-aliases.ts); an
 * engine's own preset of the same name keeps the name.
 */
export class VoiceCatalog {
  private readonly byName = new Map<string, PresetVoice>();
  private readonly engines = new Map<string, SpeechSynthesizer>();
  private readonly aliasByName = new Map<string, VoiceAlias>();

  constructor(
    synthesizers: readonly SpeechSynthesizer[],
    private readonly preferredDefaults: Record<string, string> = { en: 'slt' },
    private readonly fallback = 'slt',
  ) {
    for (const s of synthesizers) {
      this.engines.set(s.engine, s);
      for (const v of s.voices()) if (!this.byName.has(v.name)) this.byName.set(v.name, v);
    }
    const presets = this.list();
    for (const alias of OPENAI_VOICE_NAMES) {
      if (this.byName.has(alias.name)) continue;
      const target =
        chooseAliasTarget(alias, presets, ALIAS_LANGUAGE, this.defaultFor(ALIAS_LANGUAGE)) ??
        chooseAliasTarget(alias, presets, primaryLanguage(this.defaultFor(null).language), this.defaultFor(null));
      if (target) this.aliasByName.set(alias.name, { ...alias, target });
    }
  }

  /** OpenAI's voice names with the preset each stands for (in English). */
  aliases(): VoiceAlias[] {
    return [...this.aliasByName.values()];
  }

  list(): PresetVoice[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [DEFAULT_VOICE_NAME, ...this.byName.keys(), ...this.aliasByName.keys()];
  }

  /** True for `default`, every preset name and every alias: presets cannot be deleted and are never custom voices. */
  isPreset(name: string): boolean {
    return name === DEFAULT_VOICE_NAME || this.byName.has(name) || this.aliasByName.has(name);
  }

  /** A listed preset, an alias's English voice, else a voice an engine resolves by name (a Kokoro blend). */
  get(name: string): PresetVoice | undefined {
    const listed = this.byName.get(name) ?? this.aliasByName.get(name)?.target;
    if (listed) return listed;
    for (const engine of this.engines.values()) {
      const resolved = engine.resolveVoice?.(name);
      if (resolved) return resolved;
    }
    return undefined;
  }

  /**
   * The voice a name speaks with in a language (a BCP-47 hint; null: the voice's own). A preset
   * keeps its voice whatever the language; an alias asked for another language stands for that
   * language's best voice of its gender, and fails when no installed voice speaks it.
   */
  resolve(name: string, language: string | null): PresetVoice | undefined {
    const alias = this.aliasByName.get(name);
    if (!alias || language === null || primaryLanguage(language) === primaryLanguage(alias.target.language)) return this.get(name);
    const target = chooseAliasTarget(alias, this.list(), primaryLanguage(language), this.defaultFor(language));
    if (!target) throw new VoiceLanguageUnsupportedError(name, language);
    return target;
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

  /** Whether an installed voice speaks the language (BCP-47 or ISO 639-1; its primary subtag decides). */
  speaks(language: string): boolean {
    const primary = primaryLanguage(language.toLowerCase());
    return this.list().some((v) => primaryLanguage(v.language) === primary);
  }

  /** Number of distinct primary languages across all presets. */
  languageCount(): number {
    return new Set(this.list().map((v) => primaryLanguage(v.language))).size;
  }
}
