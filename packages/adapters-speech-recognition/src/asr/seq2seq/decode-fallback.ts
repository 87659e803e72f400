// Sampling above temperature 0 draws from a seeded generator (mulberry32, the avatar's): the same
// audio gives the same transcript every time (openai/whisper draws from torch's global generator).
export { seededRandom } from '@svc/adapters-runtime';

/**
 * openai/whisper's temperature fallback (transcribe.py, `decode_with_fallback`), with its defaults:
 * a window is decoded greedily, and decoded again at the next temperature while its text is too
 * repetitive (gzip compression ratio > 2.4) or too unlikely (average log-probability < -1), unless
 * the model heard silence (P(<|nospeech|>) > 0.6 with a low log-probability): then it is not
 * re-decoded, and the window is skipped (no segment), as Whisper skips it.
 */
export const WHISPER_FALLBACK = {
  temperatures: [0, 0.2, 0.4, 0.6, 0.8, 1],
  compressionRatioThreshold: 2.4,
  logprobThreshold: -1,
  noSpeechThreshold: 0.6,
} as const;

/** One window's decode and the figures that judge it (what a verbose_json segment shows). */
export interface WindowDecode {
  text: string;
  /** Sum of the chosen tokens' log-probabilities (EOS included) / (tokens + 1), as openai/whisper's avg_logprob. */
  avgLogprob: number;
  compressionRatio: number;
  /** Only for models with a no-speech token (Whisper). */
  noSpeechProb?: number;
  temperature: number;
}

/** Decodes at each temperature in turn until a decode is acceptable (or the temperatures run out: the last decode). */
export async function decodeWithFallback(
  decodeAt: (temperature: number) => Promise<WindowDecode>,
  temperatures: readonly number[],
): Promise<WindowDecode> {
  let decoded: WindowDecode | undefined;
  for (const temperature of temperatures) {
    decoded = await decodeAt(temperature);
    if (!needsFallback(decoded)) break;
  }
  return decoded!;
}

function needsFallback(d: WindowDecode): boolean {
  const { compressionRatioThreshold, logprobThreshold, noSpeechThreshold } = WHISPER_FALLBACK;
  // Silence: a low log-probability is expected, decoding again would only invent words.
  if (d.noSpeechProb !== undefined && d.noSpeechProb > noSpeechThreshold && d.avgLogprob < logprobThreshold) return false;
  return d.compressionRatio > compressionRatioThreshold || d.avgLogprob < logprobThreshold;
}

/** Whisper's `should_skip`: the model says no speech, and its text is not confident enough to overrule that. */
export function isSilence(d: WindowDecode): boolean {
  return (
    d.noSpeechProb !== undefined &&
    d.noSpeechProb > WHISPER_FALLBACK.noSpeechThreshold &&
    !(d.avgLogprob > WHISPER_FALLBACK.logprobThreshold)
  );
}
