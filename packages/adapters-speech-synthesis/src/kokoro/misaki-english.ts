// misaki's own reading of espeak-ng's English (misaki/espeak.py, EspeakFallback): the symbols the
// Kokoro authors' G2P gives a word, where kokoro-js keeps espeak's IPA with a few replacements.
// misaki's English G2P looks words up in its lexicon first and asks espeak-ng only for the others;
// this service has espeak-ng alone, so with SVC_KOKORO_ENGLISH=misaki every word goes the fallback's way.

/** EspeakFallback.E2M: espeak (tie `^` between the letters of one phoneme) -> misaki; longest first, as misaki sorts them. */
const E2M: readonly [string, string][] = (
  [
    ['ʔˌn\u0329', 'tn'],
    ['ʔn\u0329', 'tn'],
    ['ʔn', 'tn'],
    ['ʔ', 't'],
    ['a^ɪ', 'I'],
    ['a^ʊ', 'W'],
    ['d^ʒ', 'ʤ'],
    ['e^ɪ', 'A'],
    ['e', 'A'],
    ['t^ʃ', 'ʧ'],
    ['ɔ^ɪ', 'Y'],
    ['ə^l', 'ᵊl'],
    ['ʲo', 'jo'],
    ['ʲə', 'jə'],
    ['ʲ', ''],
    ['ɚ', 'əɹ'],
    ['r', 'ɹ'],
    ['x', 'k'],
    ['ç', 'k'],
    ['ɐ', 'ə'],
    ['ɬ', 'l'],
    ['\u0303', ''],
  ] as [string, string][]
).sort((a, b) => b[0].length - a[0].length);

/** Marks that modify the letter before them: never tied to it. */
const MODIFIER = /[ːˑ\u0300-\u036fʲʰʷˠˤ]/u;
const STRESS = /^[ˈˌ]+/u;

/** One espeak phoneme as espeak writes it with a tie character: `aɪ` -> `a^ɪ` (stress marks and modifiers untied). */
function tied(unit: string): string {
  const stress = STRESS.exec(unit)?.[0] ?? '';
  const chars = [...unit.slice(stress.length)];
  return stress + chars.map((c, i) => (i > 0 && !MODIFIER.test(c) && !MODIFIER.test(chars[i - 1]!) ? `^${c}` : c)).join('');
}

/** A word's espeak phonemes as misaki's EspeakFallback spells them (`british`: misaki's en-gb). */
export function misakiEnglishPhonemes(units: readonly string[], british: boolean): string {
  let ps = units.map(tied).join('');
  for (const [from, to] of E2M) ps = ps.replaceAll(from, to);
  ps = ps.replace(/(\S)\u0329/gu, 'ᵊ$1').replace(/\u0329/gu, '');
  if (british) {
    ps = ps.replaceAll('e^ə', 'ɛː').replaceAll('iə', 'ɪə').replaceAll('ə^ʊ', 'Q');
  } else {
    ps = ps.replaceAll('o^ʊ', 'O').replaceAll('ɜːɹ', 'ɜɹ').replaceAll('ɜː', 'ɜɹ').replaceAll('ɪə', 'iə').replaceAll('ː', '');
  }
  // misaki: "for espeak < 1.52"
  ps = ps.replaceAll('o', 'ɔ');
  return ps.replaceAll('^', '');
}
