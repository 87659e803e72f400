import type { MouthShape } from './face-pose.js';

/** The Oculus viseme set (what browser avatar libraries use). */
export type Viseme = 'sil' | 'PP' | 'FF' | 'TH' | 'DD' | 'kk' | 'CH' | 'SS' | 'nn' | 'RR' | 'aa' | 'E' | 'I' | 'O' | 'U';

/** The mouth shape each viseme targets. PP closes the lips completely. */
export const VISEME_SHAPES: Record<Viseme, MouthShape> = {
  sil: { open: 0, spread: 0, round: 0 },
  PP: { open: 0, spread: 0, round: 0 },
  FF: { open: 0.08, spread: 0.3, round: 0 },
  TH: { open: 0.22, spread: 0.2, round: 0 },
  DD: { open: 0.3, spread: 0.25, round: 0 },
  kk: { open: 0.38, spread: 0.15, round: 0 },
  CH: { open: 0.2, spread: 0, round: 0.5 },
  SS: { open: 0.1, spread: 0.55, round: 0 },
  nn: { open: 0.25, spread: 0.2, round: 0 },
  RR: { open: 0.28, spread: 0, round: 0.55 },
  aa: { open: 1, spread: 0.15, round: 0 },
  E: { open: 0.65, spread: 0.55, round: 0 },
  I: { open: 0.42, spread: 0.75, round: 0 },
  O: { open: 0.75, spread: 0, round: 0.75 },
  U: { open: 0.38, spread: 0, round: 1 },
};

const VOWELS = new Set<Viseme>(['aa', 'E', 'I', 'O', 'U']);

const DIGRAPHS: [string, Viseme[]][] = [
  ['tch', ['CH']],
  ['sch', ['SS', 'kk']],
  ['th', ['TH']],
  ['sh', ['CH']],
  ['ch', ['CH']],
  ['ph', ['FF']],
  ['gh', []],
  ['ng', ['nn']],
  ['ck', ['kk']],
  ['qu', ['kk', 'U']],
  ['wh', ['U']],
  ['ee', ['I']],
  ['ea', ['I']],
  ['oo', ['U']],
  ['ou', ['aa', 'U']],
  ['ow', ['O', 'U']],
  ['oi', ['O', 'I']],
  ['oy', ['O', 'I']],
  ['ai', ['E', 'I']],
  ['ay', ['E', 'I']],
  ['au', ['O']],
  ['aw', ['O']],
];

const LETTERS: Record<string, Viseme[]> = {
  a: ['aa'],
  b: ['PP'],
  c: ['kk'],
  d: ['DD'],
  e: ['E'],
  f: ['FF'],
  g: ['kk'],
  h: [],
  i: ['I'],
  j: ['CH'],
  k: ['kk'],
  l: ['nn'],
  m: ['PP'],
  n: ['nn'],
  o: ['O'],
  p: ['PP'],
  q: ['kk'],
  r: ['RR'],
  s: ['SS'],
  t: ['DD'],
  u: ['U'],
  v: ['FF'],
  w: ['U'],
  x: ['kk', 'SS'],
  y: ['I'],
  z: ['SS'],
};

/**
 * Letter-to-viseme rules for a word (English spelling; other Latin-script languages come out close
 * enough for a mouth). Digits and unknown letters give an open-ish neutral vowel so the mouth still
 * moves on what is spoken. A silent final e is dropped; soft c is SS.
 */
export function wordVisemes(word: string): Viseme[] {
  const w = word
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '');
  const letters = w.replace(/[^a-z0-9]/g, '');
  const text = letters.length > 2 && letters.endsWith('e') && !/[aeiouy]e$/.test(letters) ? letters.slice(0, -1) : letters;
  const out: Viseme[] = [];
  let i = 0;
  while (i < text.length) {
    const di = DIGRAPHS.find(([g]) => text.startsWith(g, i));
    if (di) {
      out.push(...di[1]);
      i += di[0].length;
      continue;
    }
    const ch = text[i]!;
    if (ch === 'c' && /[eiy]/.test(text[i + 1] ?? '')) out.push('SS');
    else if (/[0-9]/.test(ch)) out.push('E', 'nn');
    else out.push(...(LETTERS[ch] ?? []));
    i++;
  }
  // collapse repeats (double letters are one sound)
  const collapsed = out.filter((v, k) => k === 0 || v !== out[k - 1]);
  return collapsed.length > 0 ? collapsed : word.trim() ? ['E'] : [];
}

export function isVowel(v: Viseme): boolean {
  return VOWELS.has(v);
}
