// Signals and chunking helpers shared by the voice-cloning tests (not a test file itself).

/** A voiced-like signal: harmonics of f0 with 1/h amplitudes. */
export function harmonicTone(f0: number, seconds: number, sampleRate: number, amplitude = 0.3): Float32Array {
  const out = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < out.length; i++) {
    let v = 0;
    for (let h = 1; h * f0 < sampleRate / 2 && h <= 30; h++) v += Math.sin((2 * Math.PI * f0 * h * i) / sampleRate) / h;
    out[i] = amplitude * v * 0.5;
  }
  return out;
}

/** Splits a signal into chunks of varying sizes (the way sentences arrive). */
export function chunked(x: Float32Array, sizes = [1, 777, 5000, 24000, 3, 12345]): Float32Array[] {
  const parts: Float32Array[] = [];
  for (let o = 0, i = 0; o < x.length; i++) {
    const n = sizes[i % sizes.length]!;
    parts.push(x.subarray(o, o + n));
    o += n;
  }
  return parts;
}

export function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
