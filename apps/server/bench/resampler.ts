import { loadavg } from 'node:os';
import { floatToInt16, resampleInt16, StreamingResampler } from '@svc/adapters-runtime';

type Convert = (samples: Int16Array, from: number, to: number) => Int16Array;

/** A stream's form: the whole input as one chunk, then the held-back tail, at the stream's quality. */
const streamed: Convert = (samples, from, to) => {
  const resampler = new StreamingResampler(from, to);
  try {
    const body = floatToInt16(resampler.process(samples));
    const tail = floatToInt16(resampler.end());
    const out = new Int16Array(body.length + tail.length);
    out.set(body);
    out.set(tail, body.length);
    return out.subarray(0, Math.round((samples.length * to) / from));
  } finally {
    resampler.close();
  }
};

/** A sine at `amplitude` of full scale. */
function tone(hz: number, rate: number, seconds: number, amplitude = 0.5): Int16Array {
  const out = new Int16Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(32767 * amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
  return out;
}

/** The middle 60 %, away from the edges where the filter sees the silence outside the buffer. */
const middle = (x: Int16Array): { samples: Int16Array; offset: number } => {
  const offset = Math.floor(x.length * 0.2);
  return { samples: x.subarray(offset, Math.floor(x.length * 0.8)), offset };
};

const dB = (ratio: number): number => Math.round(200 * Math.log10(ratio)) / 10;

/**
 * A tone through the resampler against the ideal sine at the output rate (amplitude and phase fitted
 * by least squares): signal to error in dB (distortion, noise and timing error together) and gain.
 */
function toneFidelity(convert: Convert, hz: number, from: number, to: number): { snrDb: number; gainDb: number } {
  const { samples: y, offset } = middle(convert(tone(hz, from, 1), from, to));
  let ss = 0;
  let cc = 0;
  let sc = 0;
  let ys = 0;
  let yc = 0;
  const basis = (i: number): [number, number] => {
    const w = (2 * Math.PI * hz * (i + offset)) / to;
    return [Math.sin(w), Math.cos(w)];
  };
  for (let i = 0; i < y.length; i++) {
    const [s, c] = basis(i);
    ss += s * s;
    cc += c * c;
    sc += s * c;
    ys += y[i]! * s;
    yc += y[i]! * c;
  }
  const det = ss * cc - sc * sc;
  const a = (ys * cc - yc * sc) / det;
  const b = (yc * ss - ys * sc) / det;
  let error = 0;
  for (let i = 0; i < y.length; i++) {
    const [s, c] = basis(i);
    error += (y[i]! - a * s - b * c) ** 2;
  }
  const level = 0.5 * 32767;
  return { snrDb: dB(Math.sqrt((level * level) / 2 / (error / y.length))), gainDb: dB(Math.hypot(a, b) / level) };
}

/** The loudest output of tones between the output's Nyquist frequency and the input's (what would alias). */
function worstAlias(convert: Convert, from: number, to: number): number {
  let worst = 0;
  for (let hz = (to / 2) * 1.1; hz < (from / 2) * 0.98; hz += (from - to) / 24) {
    const { samples } = middle(convert(tone(hz, from, 0.5), from, to));
    const rms = Math.sqrt(samples.reduce((sum, v) => sum + v * v, 0) / samples.length);
    worst = Math.max(worst, rms / ((0.5 * 32767) / Math.SQRT2));
  }
  return dB(worst);
}

/** CPU milliseconds per second of audio converted as a whole buffer (best of 3 runs of 10 s). */
function msPerSecond(convert: Convert, from: number, to: number): number {
  const input = tone(440, from, 10);
  convert(input, from, to);
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = process.cpuUsage();
    convert(input, from, to);
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000 / 10);
  }
  return Math.round(best * 100) / 100;
}

/** One form's figures, each key prefixed with the form's name. */
function measureForm(name: string, convert: Convert): Record<string, number> {
  const results: Record<string, number> = {};
  results[`${name}: worst alias, 48 kHz -> 16 kHz (dB)`] = worstAlias(convert, 48000, 16000);
  results[`${name}: worst alias, 44.1 kHz -> 16 kHz (dB)`] = worstAlias(convert, 44100, 16000);
  for (const [hz, from, to] of [
    [1000, 48000, 16000],
    [6000, 48000, 16000],
    [1000, 22050, 48000],
    [5000, 16000, 48000],
    [3000, 24917, 48000],
  ] as const) {
    results[`${name}: tone ${hz} Hz, ${from} -> ${to}: signal to error (dB)`] = toneFidelity(convert, hz, from, to).snrDb;
  }
  results[`${name}: gain at 7 kHz, 48 kHz -> 16 kHz (dB)`] = toneFidelity(convert, 7000, 48000, 16000).gainDb;
  for (const [from, to] of [
    [48000, 16000],
    [16000, 48000],
    [22050, 48000],
    [24000, 16000],
    [24917, 48000],
  ] as const) {
    results[`${name}: CPU per second of audio, ${from} -> ${to} (ms)`] = msPerSecond(convert, from, to);
  }
  return results;
}

/**
 * `npm run bench -- resampler`: the service's one resampler (runtime/streaming-resampler.ts) alone,
 * no server, in both forms (whole buffers, streams): aliasing, tone fidelity and passband edge, and
 * CPU per second of audio.
 */
export async function benchResampler(): Promise<Record<string, number | string>> {
  const results: Record<string, number | string> = { 'load average at start': loadavg()[0]!.toFixed(2) };
  Object.assign(results, measureForm('whole buffer', resampleInt16), measureForm('stream', streamed));
  results['load average at end'] = loadavg()[0]!.toFixed(2);
  return Promise.resolve(results);
}
