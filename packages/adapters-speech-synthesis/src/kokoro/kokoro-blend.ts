// Kokoro voice blending: `kokoro-af_bella+af_sky` (equal parts) or `kokoro-af_bella*0.7+af_sky*0.3`
// (weights, normalized to sum 1). The blend's style row is the weighted mean of the voices' rows.

export interface BlendPart {
  voice: string;
  weight: number;
}

export const MAX_BLEND_PARTS = 8;

/**
 * The parts of a blended voice name (without the `kokoro-` prefix), or null when the name is not
 * a blend or not well formed (empty part, weight not a positive number, a voice twice, too many).
 */
export function parseKokoroBlend(spec: string): BlendPart[] | null {
  if (!spec.includes('+')) return null;
  const pieces = spec.split('+');
  if (pieces.length > MAX_BLEND_PARTS) return null;
  const parts: BlendPart[] = [];
  for (const piece of pieces) {
    const match = /^([a-z0-9_]+)(?:\*(\d+(?:\.\d+)?|\.\d+))?$/.exec(piece.trim().toLowerCase());
    if (!match) return null;
    const weight = match[2] === undefined ? 1 : Number(match[2]);
    if (!(weight > 0) || parts.some((p) => p.voice === match[1])) return null;
    parts.push({ voice: match[1]!, weight });
  }
  const total = parts.reduce((n, p) => n + p.weight, 0);
  return parts.map((p) => ({ voice: p.voice, weight: p.weight / total }));
}

/** Weighted sum of style tables of the same shape (rows of 256 floats). */
export function blendStyles(tables: { styles: Float32Array; weight: number }[]): Float32Array {
  const rows = Math.min(...tables.map((t) => t.styles.length));
  const out = new Float32Array(rows);
  for (const { styles, weight } of tables) for (let i = 0; i < rows; i++) out[i]! += styles[i]! * weight;
  return out;
}
