/**
 * Speaking-rate helpers: syllables counted from a transcript, and syllable nuclei found in the
 * energy envelope when there is no transcript.
 */

/**
 * Syllables of a text by vowel groups per word (English-leaning; close enough for other Latin-script
 * languages). Returns null when the text is not mostly Latin letters: there is no cheap honest
 * count for other scripts, and the energy estimate is used instead.
 */
export function countTextSyllables(text: string): number | null {
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return null;
  const latin = letters.filter((c) => /[a-zà-ÿ]/i.test(c)).length;
  if (latin / letters.length < 0.8) return null;
  let total = 0;
  for (const word of text.toLowerCase().match(/[a-zà-ÿ']+/g) ?? []) {
    const groups = word.match(/[aeiouyàâäéèêëîïôöùûüÿ]+/g)?.length ?? 0;
    let count = groups;
    // Silent final e ("make", "time"), but not "-le" ("table") or one-vowel words ("the").
    if (count > 1 && /[^aeiouyl]e$/.test(word)) count--;
    total += Math.max(1, count);
  }
  return total;
}

/**
 * Syllable nuclei: peaks of the smoothed speech-band energy (dB per frame) that rise at least
 * `minProminenceDb` above the dips on both sides, are at least `minGapFrames` apart and lie in
 * speech (above `floorDb`) and voiced frames.
 */
export function countEnergyNuclei(
  energyDb: readonly number[],
  voiced: readonly boolean[],
  floorDb: number,
  minProminenceDb = 3,
  minGapFrames = 8,
): number {
  const e = smooth(energyDb, 2);
  let count = 0;
  let lastPeak = -Infinity;
  let valley = Infinity;
  let candidate = -1;
  for (let i = 1; i < e.length - 1; i++) {
    valley = Math.min(valley, e[i]!);
    const isPeak = e[i]! >= e[i - 1]! && e[i]! > e[i + 1]!;
    if (isPeak && e[i]! > floorDb && voicedNear(voiced, i, 2) && e[i]! - valley >= minProminenceDb) {
      candidate = i;
    }
    // A candidate counts once the energy has fallen far enough after it.
    if (candidate >= 0 && e[candidate]! - e[i]! >= minProminenceDb) {
      if (candidate - lastPeak >= minGapFrames) {
        count++;
        lastPeak = candidate;
      }
      candidate = -1;
      valley = e[i]!;
    }
  }
  if (candidate >= 0 && candidate - lastPeak >= minGapFrames) count++;
  return count;
}

function voicedNear(voiced: readonly boolean[], i: number, reach: number): boolean {
  for (let j = Math.max(0, i - reach); j <= Math.min(voiced.length - 1, i + reach); j++) if (voiced[j]) return true;
  return false;
}

function smooth(values: readonly number[], radius: number): number[] {
  return values.map((_, i) => {
    let sum = 0;
    let n = 0;
    for (let j = Math.max(0, i - radius); j <= Math.min(values.length - 1, i + radius); j++) {
      sum += values[j]!;
      n++;
    }
    return sum / n;
  });
}
