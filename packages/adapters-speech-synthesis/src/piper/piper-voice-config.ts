import type { PhonemizedWord } from '../models/espeak-ipa.js';

// The `NAME.onnx.json` file Piper publishes beside each voice (piper's training export): what is read
// from it, validated once at start-up so a broken config is a start-up warning, not a 500 later.

export interface PiperVoiceConfig {
  sampleRate: number;
  /** espeak-ng voice that phonemizes for this model, e.g. `en-us`. */
  espeakVoice: string;
  /** BCP-47-ish language (from `language.code`, else the espeak voice), lower case with `-`. */
  language: string;
  noiseScale: number;
  lengthScale: number;
  noiseW: number;
  numSpeakers: number;
  /** Speaker name -> sid for multi-speaker voices. */
  speakerIds: Record<string, number>;
  phonemeIds: Map<string, number[]>;
  /** Phoneme -> phonemes applied to espeak's output first (the config's `phoneme_map`, else piper-phonemize's default for the voice). */
  phonemeMap: Map<string, string[]>;
  /**
   * The config's `vowel_clusters` (piper1-gpl, 2026): runs of phonemes (code points after NFD, such
   * as `a`, `ɪ`) the voice was trained on as ONE phoneme (`aɪ`, which its id map has). Longest first.
   */
  vowelClusters: string[][];
}

/** piper-phonemize's DEFAULT_PHONEME_MAP: per espeak voice (older espeak-ng pt-br writes c where the voices were trained on k). */
const DEFAULT_PHONEME_MAPS: Record<string, Record<string, string[]>> = { 'pt-br': { c: ['k'] } };

/** Piper's conventions (piper-phonemize phoneme_ids): pad interspersed, bos at the start, eos at the end. */
export const PIPER_PAD = '_';
export const PIPER_BOS = '^';
export const PIPER_EOS = '$';

function fail(message: string): never {
  throw new Error(message);
}

export function parsePiperVoiceConfig(json: unknown): PiperVoiceConfig {
  if (typeof json !== 'object' || json === null) fail('the config is not a JSON object');
  const c = json as Record<string, any>;
  const sampleRate = c.audio?.sample_rate;
  if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 96000) fail('audio.sample_rate is missing or not a sample rate');
  const espeakVoice = c.espeak?.voice;
  if (typeof espeakVoice !== 'string' || !espeakVoice) fail('espeak.voice is missing');
  if (c.phoneme_type !== undefined && c.phoneme_type !== 'espeak')
    fail(`phoneme_type '${String(c.phoneme_type)}' is not supported (only espeak)`);
  const map = c.phoneme_id_map;
  if (typeof map !== 'object' || map === null) fail('phoneme_id_map is missing');
  const phonemeIds = new Map<string, number[]>();
  for (const [phoneme, ids] of Object.entries(map)) {
    if (!Array.isArray(ids) || !ids.every((i) => Number.isInteger(i) && i >= 0)) fail(`phoneme_id_map['${phoneme}'] is not a list of ids`);
    phonemeIds.set(phoneme, ids as number[]);
  }
  for (const special of [PIPER_PAD, PIPER_BOS, PIPER_EOS]) if (!phonemeIds.has(special)) fail(`phoneme_id_map has no '${special}'`);
  const inference = c.inference ?? {};
  const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
  const language = String(c.language?.code ?? espeakVoice)
    .toLowerCase()
    .replace(/_/g, '-');
  const configured =
    typeof c.phoneme_map === 'object' && c.phoneme_map !== null ? Object.entries(c.phoneme_map as Record<string, unknown>) : [];
  for (const [from, to] of configured)
    if (!Array.isArray(to) || !to.every((p) => typeof p === 'string')) fail(`phoneme_map['${from}'] is not a list of phonemes`);
  const phonemeMap = new Map<string, string[]>(
    configured.length > 0 ? (configured as [string, string[]][]) : Object.entries(DEFAULT_PHONEME_MAPS[espeakVoice] ?? {}),
  );
  const vowelClusters = parseVowelClusters(c.vowel_clusters, phonemeIds);
  return {
    sampleRate,
    espeakVoice,
    language,
    // Piper's defaults when a config leaves them out.
    noiseScale: num(inference.noise_scale, 0.667),
    lengthScale: num(inference.length_scale, 1),
    noiseW: num(inference.noise_w, 0.8),
    numSpeakers: Number.isInteger(c.num_speakers) && c.num_speakers > 0 ? c.num_speakers : 1,
    speakerIds: typeof c.speaker_id_map === 'object' && c.speaker_id_map ? c.speaker_id_map : {},
    phonemeIds,
    phonemeMap,
    vowelClusters,
  };
}

/** `vowel_clusters`: a list of lists of phonemes, each list's concatenation an id of the map (piper1-gpl merges only those). */
function parseVowelClusters(value: unknown, phonemeIds: Map<string, number[]>): string[][] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail('vowel_clusters is not a list');
  const clusters = value.map((cluster, i) => {
    if (!Array.isArray(cluster) || cluster.length < 2 || !cluster.every((p) => typeof p === 'string' && p))
      fail(`vowel_clusters[${i}] is not a list of two or more phonemes`);
    const merged = cluster.join('');
    if (!phonemeIds.has(merged)) fail(`vowel_clusters[${i}] '${merged}' has no id in phoneme_id_map`);
    return cluster as string[];
  });
  return clusters.sort((a, b) => b.length - a.length);
}

export interface PiperIds {
  ids: number[];
  /** For each word: the index range [start, end) of its ids, for estimated word timings. */
  wordSpans: { word: string; start: number; end: number }[];
}

/**
 * A word's phonemes as piper-phonemize makes them for training and inference: espeak-ng's IPA
 * (language switch flags already removed) decomposed to NFD (`ç` -> `c` + U+0327), the phoneme map
 * applied per code point, then, when espeak ended a clause after the word, the punctuation Piper
 * writes for it (clause-punctuation.ts: `.`, `,`, `?`, `!`, `:`, `;`, or nothing).
 */
export function piperWordPhonemes(word: PhonemizedWord, phonemeMap: Map<string, string[]>): string[] {
  const phonemes: string[] = [];
  for (const codePoint of word.phonemes.join('').normalize('NFD')) phonemes.push(...(phonemeMap.get(codePoint) ?? [codePoint]));
  if (word.clauseEnd?.mark) phonemes.push(word.clauseEnd.mark);
  return phonemes;
}

/**
 * What separates a word from the next, as piper-phonemize writes it: a space between words of a
 * clause, none between words espeak joined, a space after `,` `:` `;` (Piper's own) and after a
 * sentence end (Piper would start another inference there; one inference here keeps the words
 * apart with its space), and none after a clause Piper writes no mark for ("…"), as Piper glues it.
 */
function piperSeparator(word: PhonemizedWord): string[] {
  const end = word.clauseEnd;
  if (!end) return word.joinedWithNext ? [] : [' '];
  return end.sentence || end.mark === ',' || end.mark === ':' || end.mark === ';' ? [' '] : [];
}

/** piper1-gpl's merge: at each position the longest vowel cluster that matches becomes one phoneme. */
function mergeVowelClusters(phonemes: { phoneme: string; word: number }[], clusters: string[][]): { phoneme: string; word: number }[] {
  if (clusters.length === 0) return phonemes;
  const out: { phoneme: string; word: number }[] = [];
  for (let i = 0; i < phonemes.length;) {
    const match = clusters.find((c) => c.every((p, k) => phonemes[i + k]?.phoneme === p));
    out.push(match ? { phoneme: match.join(''), word: phonemes[i]!.word } : phonemes[i]!);
    i += match ? match.length : 1;
  }
  return out;
}

/**
 * The phonemes Piper reads for these words, each with the index of the word it belongs to (-1 for
 * a separator): every word's phonemes, words separated as piperSeparator says, vowel clusters merged.
 */
export function piperPhonemeSequence(
  words: PhonemizedWord[],
  config: Pick<PiperVoiceConfig, 'phonemeMap' | 'vowelClusters'>,
): { phoneme: string; word: number }[] {
  const sequence: { phoneme: string; word: number }[] = [];
  words.forEach((w, i) => {
    for (const phoneme of piperWordPhonemes(w, config.phonemeMap)) sequence.push({ phoneme, word: i });
    if (i < words.length - 1) for (const phoneme of piperSeparator(w)) sequence.push({ phoneme, word: -1 });
  });
  return mergeVowelClusters(sequence, config.vowelClusters);
}

/**
 * Phonemes to ids the way Piper does it: bos, pad, then every phoneme's ids (piperPhonemeSequence)
 * each followed by pad, then eos. Phonemes the map does not know are dropped (Piper does the same).
 */
export function piperPhonemeIds(words: PhonemizedWord[], config: PiperVoiceConfig): PiperIds {
  const map = config.phonemeIds;
  const pad = map.get(PIPER_PAD)!;
  const ids: number[] = [...map.get(PIPER_BOS)!, ...pad];
  const spans = words.map((w) => ({ word: w.word, start: -1, end: -1 }));
  for (const { phoneme, word } of piperPhonemeSequence(words, config)) {
    const found = map.get(phoneme);
    if (!found) continue;
    const span = spans[word];
    if (span && span.start < 0) span.start = ids.length;
    ids.push(...found, ...pad);
    if (span) span.end = ids.length;
  }
  // A word none of whose phonemes has an id still gets a place: where the next ids start.
  let at = ids.length;
  for (let i = spans.length - 1; i >= 0; i--) {
    const span = spans[i]!;
    if (span.start < 0) span.start = span.end = at;
    at = span.start;
  }
  ids.push(...map.get(PIPER_EOS)!);
  return { ids, wordSpans: spans };
}
