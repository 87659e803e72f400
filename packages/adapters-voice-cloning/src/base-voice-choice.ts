import type { BaseVoiceCandidate, SpeakerFeatures } from '@svc/core';

/**
 * The base preset that needs the smallest change to sound like the target: pitch distance (in
 * semitones, a 4-semitone shift counting as one unit) plus vocal-tract distance (6 % per unit).
 * Smaller shifts mean fewer artefacts, and formant scaling is the more audible one. Ties go to the
 * earlier candidate (candidates come in order of preference).
 */
export function chooseClosestBase(target: SpeakerFeatures, candidates: readonly BaseVoiceCandidate[]): BaseVoiceCandidate {
  if (candidates.length === 0) throw new Error('No base voice candidates to choose from.');
  let best = candidates[0]!;
  let bestCost = Infinity;
  for (const candidate of candidates) {
    const pitch = Math.abs(12 * Math.log2(target.f0MedianHz / candidate.speaker.f0MedianHz)) / 4;
    const formant = Math.abs(100 * Math.log(target.formantScale / candidate.speaker.formantScale)) / 6;
    const cost = pitch + formant;
    if (cost < bestCost - 1e-9) {
      best = candidate;
      bestCost = cost;
    }
  }
  return best;
}
