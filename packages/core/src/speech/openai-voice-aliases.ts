import type { PresetVoice } from './speech-synthesizer.js';

/** Primary language subtag: 'en-us' -> 'en'. */
const primary = (tag: string): string => tag.toLowerCase().split(/[-_]/)[0]!;

export interface OpenAiVoiceName {
  name: string;
  /** As OpenAI's voice previews present the voice. */
  gender: PresetVoice['gender'];
  /** An accent the voice is known for (fable is British); English voices of that tag are preferred. */
  accent?: string;
  description: string;
}

/**
 * OpenAI's built-in voice names. SDKs send them by default (the AI SDK `alloy`, LiveKit's TTS
 * plugin `alloy`, realtime clients `marin`), so each is a preset here aliasing the best installed
 * voice of its gender (see chooseAliasTarget).
 */
export const OPENAI_VOICE_NAMES: readonly OpenAiVoiceName[] = [
  { name: 'alloy', gender: 'neutral', description: 'OpenAI alloy: neutral, balanced' },
  { name: 'ash', gender: 'male', description: 'OpenAI ash: male, clear and direct' },
  { name: 'ballad', gender: 'male', description: 'OpenAI ballad: male, soft and melodic' },
  { name: 'coral', gender: 'female', description: 'OpenAI coral: female, warm and friendly' },
  { name: 'echo', gender: 'male', description: 'OpenAI echo: male, resonant' },
  { name: 'fable', gender: 'male', accent: 'en-gb', description: 'OpenAI fable: male, British, storytelling' },
  { name: 'nova', gender: 'female', description: 'OpenAI nova: female, bright and youthful' },
  { name: 'onyx', gender: 'male', description: 'OpenAI onyx: male, deep' },
  { name: 'sage', gender: 'female', description: 'OpenAI sage: female, calm and measured' },
  { name: 'shimmer', gender: 'female', description: 'OpenAI shimmer: female, clear and soft' },
  { name: 'verse', gender: 'male', description: 'OpenAI verse: male, expressive' },
  { name: 'marin', gender: 'female', description: 'OpenAI marin: female, natural and conversational' },
  { name: 'cedar', gender: 'male', description: 'OpenAI cedar: male, natural and conversational' },
];

/**
 * Engines from best to worst for a stand-in: neural voices first (Kokoro, then Piper), an
 * upstream server next, then the embedded Flite and espeak-ng. An engine not listed ranks with
 * the upstream one.
 */
const ENGINE_RANK: Record<string, number> = { kokoro: 0, piper: 1, upstream: 2, flite: 3, espeak: 4 };
const UNLISTED_ENGINE_RANK = 2;

/** Within Flite: the two HTS voices are the most natural; the diphone `kal` voices the least. */
const FLITE_QUALITY: Record<string, number> = { slt: 0, rms: 0, awb: 1, kal16: 2, kal: 3 };

/** Lower is better; compared element by element. */
function score(voice: PresetVoice, alias: OpenAiVoiceName, language: string, preferred: PresetVoice | undefined): number[] {
  const engine = ENGINE_RANK[voice.engine] ?? UNLISTED_ENGINE_RANK;
  // An upstream server that has the very voice (`upstream-alloy`) is the alias itself.
  const sameName = voice.engine === 'upstream' && voice.engineVoice.toLowerCase() === alias.name ? 0 : 1;
  const opposite = voice.gender !== alias.gender && voice.gender !== 'neutral' && alias.gender !== 'neutral' ? 1 : 0;
  const gender = voice.gender === alias.gender ? 0 : 1;
  const wanted = alias.accent && primary(alias.accent) === language ? alias.accent : null;
  const tag = voice.language.toLowerCase();
  const accent = wanted ? (tag === wanted || tag.startsWith(`${wanted}-`) ? 0 : 1) : 0;
  // Otherwise the regional variant the server's default voice speaks (en-us; fr rather than fr-be).
  const regional = wanted || !preferred || tag === preferred.language.toLowerCase() ? 0 : 1;
  const quality = voice.engine === 'flite' ? (FLITE_QUALITY[voice.engineVoice] ?? 1) : 0;
  return [sameName, opposite, engine, gender, accent, regional, quality];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * The voice an OpenAI name stands for in a language (primary subtag, e.g. `en`): among the
 * installed presets of that language, never the opposite gender when another voice exists, then
 * the best engine (ENGINE_RANK), then the alias's own gender over a voice of unknown gender (Piper
 * models do not say), then its accent, then the regional variant of `preferred`, then quality. Voices tied for best are shared out among the aliases of the same
 * gender in table order, so `echo` and `onyx` are different voices wherever two equally good male
 * voices exist; `preferred` (the server's `default` voice for the language) goes first among them.
 * Undefined when no preset speaks the language.
 */
export function chooseAliasTarget(
  alias: OpenAiVoiceName,
  presets: readonly PresetVoice[],
  language: string,
  preferred?: PresetVoice,
): PresetVoice | undefined {
  const candidates = presets.filter((p) => primary(p.language) === language);
  if (candidates.length === 0) return undefined;
  const scored = candidates.map((voice) => ({ voice, score: score(voice, alias, language, preferred) }));
  const first = (v: PresetVoice): number => (v.name === preferred?.name ? 0 : 1);
  scored.sort((a, b) => compare(a.score, b.score) || first(a.voice) - first(b.voice) || a.voice.name.localeCompare(b.voice.name));
  const best = scored.filter((s) => compare(s.score, scored[0]!.score) === 0);
  const peers = OPENAI_VOICE_NAMES.filter((v) => v.gender === alias.gender && v.accent === alias.accent);
  return best[
    Math.max(
      0,
      peers.findIndex((v) => v.name === alias.name),
    ) % best.length
  ]!.voice;
}
