/**
 * OpenAI's speech `instructions` ("Speak in a cheerful and positive tone", "talk slowly, like a news
 * anchor") mapped onto this service's inline tags. The engines here cannot follow free text, so the
 * delivery words they can render are looked up in DELIVERY_INSTRUCTIONS and everything else is
 * ignored (negations such as "don't whisper" are not understood). The tags found act as if they
 * opened the input: inline tags of the same kind in `input` take over from them, and
 * `<|prosody:reset|>` undoes them. The speech endpoint names what it applied in a response header.
 */

export interface DeliveryInstruction {
  /** Words (lower case, whole words; a trailing `*` matches any ending) that ask for this delivery. */
  words: readonly string[];
  /** The inline tag it becomes, `kind:value`. */
  tag: string;
}

/**
 * At most one tag per slot: one emotion, one style, and one prosody value per dimension. When two
 * rows of a slot match, the one whose words come first in the instructions wins. The order of rows
 * decides only between words at the same position ("very slowly" is x-slow, not slow).
 */
export const DELIVERY_INSTRUCTIONS: readonly DeliveryInstruction[] = [
  {
    words: ['cheerful*', 'excited', 'excitement', 'enthusiastic*', 'energetic*', 'upbeat', 'lively', 'positive'],
    tag: 'emotion:enthusiasm',
  },
  { words: ['happy', 'happily', 'joyful*', 'warm', 'warmly', 'friendly'], tag: 'emotion:happy' },
  { words: ['calm*', 'soothing*', 'gentle', 'gently', 'relaxed', 'relaxing', 'serene*', 'peaceful*', 'reassuring*'], tag: 'emotion:calm' },
  { words: ['sad', 'sadly', 'melanchol*', 'somber*', 'sombre*', 'sorrow*', 'gloomy'], tag: 'emotion:sad' },
  { words: ['angry', 'angrily', 'furious*', 'irritated', 'annoyed'], tag: 'emotion:angry' },
  { words: ['scared', 'afraid', 'fearful*', 'nervous*', 'anxious*', 'frightened'], tag: 'emotion:fear' },
  { words: ['surprised', 'astonished', 'amazed', 'shocked'], tag: 'emotion:surprise' },
  { words: ['tired', 'sleepy', 'weary', 'exhausted', 'drowsy'], tag: 'emotion:tired' },
  { words: ['whisper*', 'hushed'], tag: 'style:whisper' },
  { words: ['news', 'newsreader', 'anchor', 'newscaster', 'broadcaster', 'reporter'], tag: 'style:news' },
  { words: ['narrat*', 'audiobook*'], tag: 'style:narration' },
  { words: ['storytell*', 'story', 'bedtime'], tag: 'style:storytelling' },
  { words: ['conversational*', 'casual*', 'chatty', 'informal*'], tag: 'style:conversational' },
  { words: ['serious*', 'grave', 'solemn*', 'authoritative*'], tag: 'style:serious' },
  { words: ['formal*', 'professional*', 'polite*'], tag: 'style:formal' },
  { words: ['shout*', 'yell*'], tag: 'style:shouting' },
  { words: ['very slow*', 'extremely slow*', 'really slow*'], tag: 'prosody:x-slow' },
  { words: ['slow', 'slowly', 'slower', 'unhurried', 'leisurely', 'deliberate*'], tag: 'prosody:slow' },
  { words: ['very fast', 'very quick*', 'extremely fast', 'really fast'], tag: 'prosody:x-fast' },
  { words: ['fast', 'faster', 'quick', 'quickly', 'quicker', 'rapid*', 'brisk*', 'hurried*'], tag: 'prosody:fast' },
  { words: ['loud', 'loudly', 'louder', 'forceful*', 'booming'], tag: 'prosody:loud' },
  { words: ['quiet', 'quietly', 'softly', 'soft-spoken', 'soft'], tag: 'prosody:soft' },
  { words: ['deep', 'deeper', 'low-pitched', 'low pitch', 'lower pitch', 'baritone'], tag: 'prosody:low' },
  { words: ['high-pitched', 'high pitch', 'higher pitch', 'squeaky'], tag: 'prosody:high' },
  { words: ['monotone', 'monotonous', 'flat', 'robotic*'], tag: 'prosody:monotone' },
  { words: ['expressive*', 'animated', 'dramatic*', 'theatrical*'], tag: 'prosody:expressive' },
];

/** Which slot a tag fills: emotion, style, or the prosody dimension it changes. */
function slotOf(tag: string): string {
  const [kind, value] = tag.split(':') as [string, string];
  if (kind !== 'prosody') return kind;
  if (/slow|fast/.test(value)) return 'rate';
  if (/loud|soft/.test(value)) return 'volume';
  if (value === 'low' || value === 'high') return 'pitch';
  return 'range';
}

function wordPattern(word: string): RegExp {
  const open = word.endsWith('*');
  const stem = (open ? word.slice(0, -1) : word).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[ -]/g, '[\\s-]+');
  return new RegExp(`(?<![\\p{L}\\p{N}])${stem}${open ? '[\\p{L}]*' : '(?![\\p{L}\\p{N}])'}`, 'iu');
}

const COMPILED = DELIVERY_INSTRUCTIONS.map((row, order) => ({ ...row, order, patterns: row.words.map(wordPattern) }));

export interface AppliedDelivery {
  /** The tags, as inline tag text to put before the input (empty when nothing was recognized). */
  prefix: string;
  /** `kind:value` of each tag applied, in the order of the table. */
  applied: string[];
}

/** The tags an `instructions` text asks for (see DELIVERY_INSTRUCTIONS). */
export function deliveryFromInstructions(instructions: string): AppliedDelivery {
  const best = new Map<string, { at: number; order: number; tag: string }>();
  for (const row of COMPILED) {
    let at = Infinity;
    for (const pattern of row.patterns) {
      const match = pattern.exec(instructions);
      if (match && match.index < at) at = match.index;
    }
    if (at === Infinity) continue;
    const slot = slotOf(row.tag);
    const current = best.get(slot);
    // Longer phrases ("very slowly") start where their shorter rows ("slowly") do not; an earlier
    // word wins, and at the same position the earlier row (the more specific phrase) does.
    if (!current || at < current.at || (at === current.at && row.order < current.order))
      best.set(slot, { at, order: row.order, tag: row.tag });
  }
  const applied = [...best.values()].sort((a, b) => a.order - b.order).map((b) => b.tag);
  return { prefix: applied.map((tag) => `<|${tag}|>`).join(''), applied };
}
