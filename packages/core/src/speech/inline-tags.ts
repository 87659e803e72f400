import { combineProsody, NEUTRAL_PROSODY, type Prosody } from './prosody.js';
import { SOUND_EFFECTS } from './sound-effects.js';

/**
 * Inline control tags inside speech input: `<|emotion:V|>`, `<|style:V|>`, `<|prosody:V|>` and
 * `<|sfx:V|>`. Tags are never spoken. The rules, all documented in SUPPORTED_TAG_VALUES:
 *
 * - emotion and style set how the following text sounds until the next tag of the same kind;
 *   the two combine (a sad emotion in a whisper style is both). `neutral` ends either one.
 * - prosody values (slow, fast, loud, soft, high, low, ...) change one dimension each, until a
 *   value for the same dimension, `normal` (undoes prosody values) or `reset` (undoes emotion,
 *   style and prosody alike). `prosody:pause` inserts silence instead.
 * - sfx inserts a sound effect segment.
 * - Kinds, values and names nobody knows are dropped, as is a tag without a value
 *   (`<|emotion|>`). An unclosed `<|kind:value` with a known kind ends at the next whitespace
 *   and is read as that tag; any other lone `<|` or `|>` is ordinary text.
 * - A tag between two letters (`fan<|sfx:pop|>tastic`) acts after that word, so the word is
 *   spoken whole; anywhere else a tag separates words, so removing it never glues two together.
 */

export type SpeechSegment =
  { kind: 'text'; text: string; prosody: Prosody } | { kind: 'pause'; ms: number } | { kind: 'sfx'; name: string };

type TagKind = 'emotion' | 'style' | 'prosody' | 'sfx';

interface ToneEntry {
  prosody: Partial<Prosody>;
  description: string;
}

const EMOTIONS: Record<string, ToneEntry> = {
  neutral: { prosody: {}, description: 'Ends the current emotion.' },
  enthusiasm: {
    prosody: { rate: 1.1, pitch: 1.08, pitchRange: 1.35, volume: 1.15 },
    description: 'Energetic and eager: a little faster, higher and livelier.',
  },
  excited: {
    prosody: { rate: 1.15, pitch: 1.12, pitchRange: 1.4, volume: 1.2 },
    description: 'Thrilled: faster, higher, wide intonation, louder.',
  },
  happy: {
    prosody: { rate: 1.05, pitch: 1.06, pitchRange: 1.25, volume: 1.05 },
    description: 'Warm and bright: slightly higher with livelier intonation.',
  },
  joy: { prosody: { rate: 1.07, pitch: 1.08, pitchRange: 1.3, volume: 1.1 }, description: 'Delighted: like happy, a step brighter.' },
  sad: { prosody: { rate: 0.85, pitch: 0.94, pitchRange: 0.6, volume: 0.85 }, description: 'Slow, lower, flat and quiet.' },
  angry: {
    prosody: { rate: 1.1, pitch: 0.97, pitchRange: 1.3, volume: 1.3 },
    description: 'Forceful: faster, louder, hard-edged intonation.',
  },
  calm: { prosody: { rate: 0.9, pitch: 0.98, pitchRange: 0.8, volume: 0.9 }, description: 'Relaxed: slower, even and a little softer.' },
  fear: { prosody: { rate: 1.15, pitch: 1.1, pitchRange: 1.2, volume: 0.9 }, description: 'Anxious: hurried, higher and unsteady.' },
  scared: { prosody: { rate: 1.15, pitch: 1.1, pitchRange: 1.2, volume: 0.9 }, description: 'Same as fear.' },
  surprise: {
    prosody: { rate: 1.05, pitch: 1.15, pitchRange: 1.5, volume: 1.1 },
    description: 'Astonished: high pitch with wide intonation.',
  },
  surprised: { prosody: { rate: 1.05, pitch: 1.15, pitchRange: 1.5, volume: 1.1 }, description: 'Same as surprise.' },
  whisper: { prosody: { rate: 0.88, pitch: 0.98, pitchRange: 0.7, volume: 0.45 }, description: 'Hushed: soft and slow.' },
  whispering: { prosody: { rate: 0.88, pitch: 0.98, pitchRange: 0.7, volume: 0.45 }, description: 'Same as whisper.' },
  tired: { prosody: { rate: 0.85, pitch: 0.95, pitchRange: 0.7, volume: 0.85 }, description: 'Weary: slow, low and flat.' },
};

const STYLES: Record<string, ToneEntry> = {
  neutral: { prosody: {}, description: 'Ends the current style.' },
  narration: { prosody: { rate: 0.95, pitchRange: 1.05 }, description: 'Audiobook narration: unhurried and clear.' },
  storytelling: { prosody: { rate: 0.95, pitchRange: 1.15 }, description: 'Like narration, with more expressive intonation.' },
  news: { prosody: { rate: 1.05, pitchRange: 0.9, volume: 1.05 }, description: 'Newsreader: brisk, steady and assertive.' },
  conversational: { prosody: { rate: 1.02, pitchRange: 1.1 }, description: 'Casual everyday talk.' },
  whisper: { prosody: { rate: 0.9, pitchRange: 0.7, volume: 0.45 }, description: 'Whispered delivery: very soft, a little slow.' },
  shouting: { prosody: { rate: 1.05, pitch: 1.15, pitchRange: 1.3, volume: 1.6 }, description: 'Shouted: loud and high.' },
  shout: { prosody: { rate: 1.05, pitch: 1.15, pitchRange: 1.3, volume: 1.6 }, description: 'Same as shouting.' },
  cheerful: { prosody: { rate: 1.05, pitch: 1.08, pitchRange: 1.3, volume: 1.05 }, description: 'Upbeat and friendly.' },
  serious: { prosody: { rate: 0.93, pitch: 0.95, pitchRange: 0.8 }, description: 'Grave and measured: slower, lower, flatter.' },
  formal: { prosody: { rate: 0.97, pitchRange: 0.9 }, description: 'Polite and even.' },
};

type Dimension = keyof Prosody;

/** Each prosody value sets some dimensions; a later value for the same dimension replaces it. */
const PROSODY_CHANGES: Record<string, ToneEntry> = {
  'x-slow': { prosody: { rate: 0.6 }, description: 'Much slower (rate 0.6).' },
  slow: { prosody: { rate: 0.8 }, description: 'Slower (rate 0.8).' },
  fast: { prosody: { rate: 1.25 }, description: 'Faster (rate 1.25).' },
  'x-fast': { prosody: { rate: 1.6 }, description: 'Much faster (rate 1.6).' },
  'x-soft': { prosody: { volume: 0.35 }, description: 'Much quieter (volume 0.35).' },
  soft: { prosody: { volume: 0.6 }, description: 'Quieter (volume 0.6).' },
  loud: { prosody: { volume: 1.5 }, description: 'Louder (volume 1.5).' },
  'x-loud': { prosody: { volume: 2 }, description: 'Much louder (volume 2).' },
  'x-low': { prosody: { pitch: 0.8 }, description: 'Much lower pitch (0.8).' },
  low: { prosody: { pitch: 0.9 }, description: 'Lower pitch (0.9).' },
  high: { prosody: { pitch: 1.12 }, description: 'Higher pitch (1.12).' },
  'x-high': { prosody: { pitch: 1.25 }, description: 'Much higher pitch (1.25).' },
  monotone: { prosody: { pitchRange: 0.3 }, description: 'Flat intonation (pitch range 0.3).' },
  expressive: { prosody: { pitchRange: 1.5 }, description: 'Wide intonation (pitch range 1.5).' },
  emphasis: { prosody: { volume: 1.25, pitchRange: 1.3 }, description: 'Stressed: louder with wider intonation.' },
};

const DEFAULT_PAUSE_MS = 500;
const MAX_PAUSE_MS = 10_000;
const NAMED_PAUSES: Record<string, number> = {
  pause: DEFAULT_PAUSE_MS,
  'pause-short': 250,
  'short-pause': 250,
  'pause-long': 1000,
  'long-pause': 1000,
};

export const SUPPORTED_TAG_VALUES: Record<TagKind, Record<string, string>> = {
  emotion: describe(EMOTIONS),
  style: describe(STYLES),
  prosody: {
    pause: `Inserts ${DEFAULT_PAUSE_MS} ms of silence.`,
    'pause-short': 'Inserts 250 ms of silence (also short-pause).',
    'pause-long': 'Inserts 1000 ms of silence (also long-pause).',
    'pause=NNNms': `Inserts NNN ms of silence; also pause:NNN, pause=1.5s (at most ${MAX_PAUSE_MS} ms).`,
    ...describe(PROSODY_CHANGES),
    normal: 'Undoes earlier prosody values (emotion and style stay).',
    reset: 'Back to the plain voice: undoes emotion, style and prosody values.',
  },
  sfx: { ...SOUND_EFFECTS },
};

function describe(entries: Record<string, ToneEntry>): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).map(([value, entry]) => [value, entry.description]));
}

function lookup<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** "pause", "pause-long", "pause=300ms", "pause:300", "pause:1.5s" -> milliseconds; null if not a pause. */
function pauseMilliseconds(value: string): number | null {
  const named = lookup(NAMED_PAUSES, value);
  if (named !== undefined) return named;
  const match = /^pause[=:](\d+(?:\.\d+)?)(ms|s)?$/.exec(value);
  if (!match) return null;
  const ms = Number(match[1]) * (match[2] === 's' ? 1000 : 1);
  return Math.min(MAX_PAUSE_MS, Math.round(ms));
}

interface Tag {
  kind: string;
  value: string;
}

/** A well-formed tag: a word, an optional ":value" without spaces or tag characters, and "|>". */
const WELL_FORMED = '<\\|\\s*([A-Za-z_-]*)\\s*(?::\\s*([^\\s|<>]*))?\\s*\\|>';
/** An opener that never closes but clearly meant a tag: the tag ends with its word. */
const UNCLOSED = '<\\|\\s*(emotion|style|prosody|sfx)\\s*:([^\\s|<>]*)(?!\\s*\\|>)';
const TAG_PATTERN = new RegExp(`${WELL_FORMED}|${UNCLOSED}`, 'gi');

/** Text and tag runs in order; consecutive tags form one run so they act at a single position. */
function tokenize(input: string): Array<string | Tag[]> {
  const tokens: Array<string | Tag[]> = [];
  let last = 0;
  for (const match of input.matchAll(TAG_PATTERN)) {
    const between = input.slice(last, match.index);
    const kind = (match[1] ?? match[3] ?? '').toLowerCase();
    const value = (match[2] ?? match[4] ?? '').toLowerCase().replace(/_/g, '-');
    const tag: Tag = { kind, value };
    const previous = tokens[tokens.length - 1];
    if (between === '' && Array.isArray(previous)) previous.push(tag);
    else {
      if (between !== '') tokens.push(between);
      tokens.push([tag]);
    }
    last = match.index + match[0].length;
  }
  if (last < input.length) tokens.push(input.slice(last));
  return tokens;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}'’-]/u;

class SegmentBuilder {
  private emotion: Partial<Prosody> = {};
  private style: Partial<Prosody> = {};
  private changes: Partial<Record<Dimension, number>> = {};
  readonly segments: SpeechSegment[] = [];

  constructor(private readonly base: Prosody) {}

  private current(): Prosody {
    return combineProsody(combineProsody(combineProsody(this.base, this.emotion), this.style), this.changes);
  }

  addText(text: string): void {
    if (text !== '') this.segments.push({ kind: 'text', text, prosody: this.current() });
  }

  apply(tag: Tag): void {
    switch (tag.kind) {
      case 'emotion': {
        const entry = lookup(EMOTIONS, tag.value);
        if (entry) this.emotion = entry.prosody;
        return;
      }
      case 'style': {
        const entry = lookup(STYLES, tag.value);
        if (entry) this.style = entry.prosody;
        return;
      }
      case 'prosody':
        return this.applyProsody(tag.value);
      case 'sfx':
        if (Object.hasOwn(SOUND_EFFECTS, tag.value)) this.segments.push({ kind: 'sfx', name: tag.value });
        return;
      default:
        return;
    }
  }

  private applyProsody(value: string): void {
    const pause = pauseMilliseconds(value);
    if (pause !== null) {
      this.segments.push({ kind: 'pause', ms: pause });
    } else if (value === 'normal') {
      this.changes = {};
    } else if (value === 'reset') {
      this.changes = {};
      this.emotion = {};
      this.style = {};
    } else {
      const entry = lookup(PROSODY_CHANGES, value);
      if (entry) this.changes = { ...this.changes, ...entry.prosody };
    }
  }
}

function sameProsody(a: Prosody, b: Prosody): boolean {
  const close = (x: number, y: number) => Math.abs(x - y) < 1e-9;
  return close(a.rate, b.rate) && close(a.pitch, b.pitch) && close(a.pitchRange, b.pitchRange) && close(a.volume, b.volume);
}

/**
 * Whitespace-only text carries no speech but may separate words, so it is folded into a
 * neighbouring text segment; then same-prosody neighbours merge and each text is tidied.
 */
function tidySegments(raw: SpeechSegment[]): SpeechSegment[] {
  const merged: SpeechSegment[] = [];
  let carriedSpace = '';
  for (const segment of raw) {
    const previous = merged[merged.length - 1];
    if (segment.kind === 'text' && segment.text.trim() === '') {
      if (previous?.kind === 'text') previous.text += segment.text;
      else carriedSpace += segment.text;
      continue;
    }
    if (segment.kind === 'text') {
      const text = carriedSpace + segment.text;
      carriedSpace = '';
      if (previous?.kind === 'text' && sameProsody(previous.prosody, segment.prosody)) previous.text += text;
      else merged.push({ ...segment, text });
    } else {
      merged.push(segment);
    }
  }
  return merged.flatMap((segment): SpeechSegment[] => {
    if (segment.kind !== 'text') return [segment];
    const text = segment.text
      .replace(/[^\S\n]+/g, ' ')
      .replace(/ ?\n ?/g, '\n')
      .trim();
    return text === '' ? [] : [{ ...segment, text }];
  });
}

/** Splits speech input into text (with its prosody), pauses and sound effects, removing every tag. */
export function parseInlineTags(input: string, base: Prosody = NEUTRAL_PROSODY): SpeechSegment[] {
  const builder = new SegmentBuilder({ ...base });
  const tokens = tokenize(input);
  /** Tags found inside a word, waiting for the word to end. */
  let deferred: Tag[] = [];
  let lastChar = '';

  tokens.forEach((token, i) => {
    if (typeof token === 'string') {
      let text = token;
      if (deferred.length > 0) {
        const wordEnd = /^\S*/.exec(text)![0];
        builder.addText(wordEnd);
        text = text.slice(wordEnd.length);
        if (text === '') {
          lastChar = wordEnd.slice(-1) || lastChar;
          return; // the word goes on past another tag run
        }
        deferred.forEach((tag) => builder.apply(tag));
        deferred = [];
      }
      builder.addText(text);
      lastChar = text.slice(-1);
      return;
    }
    const next = tokens[i + 1];
    const firstNext = typeof next === 'string' ? next.charAt(0) : '';
    const inWord = WORD_CHAR.test(lastChar) && WORD_CHAR.test(firstNext) && !/\p{Lu}/u.test(firstNext);
    if (inWord || deferred.length > 0) {
      deferred.push(...token);
      return;
    }
    // A tag between two non-space characters still separates the words around it.
    if (/\S/.test(lastChar) && /\S/.test(firstNext)) builder.addText(' ');
    token.forEach((tag) => builder.apply(tag));
  });
  deferred.forEach((tag) => builder.apply(tag));
  return tidySegments(builder.segments);
}

/** True for a tag that changes how the text after it sounds (not a pause, a sound effect or an unknown tag). */
function isLasting(tag: Tag): boolean {
  if (tag.kind === 'emotion') return lookup(EMOTIONS, tag.value) !== undefined;
  if (tag.kind === 'style') return lookup(STYLES, tag.value) !== undefined;
  if (tag.kind !== 'prosody') return false;
  return tag.value === 'normal' || tag.value === 'reset' || lookup(PROSODY_CHANGES, tag.value) !== undefined;
}

/**
 * The tags of `input` that change how later text sounds (emotion, style and prosody values; not
 * pauses or sound effects), rewritten in order. Put in front of a later piece of the same text
 * spoken on its own (a streamed reply spoken sentence by sentence), they give that piece the voice
 * it would have had in one request.
 */
export function lastingTags(input: string): string {
  const tags: string[] = [];
  for (const token of tokenize(input)) {
    if (typeof token === 'string') continue;
    for (const tag of token) if (isLasting(tag)) tags.push(`<|${tag.kind}:${tag.value}|>`);
  }
  return tags.join('');
}
