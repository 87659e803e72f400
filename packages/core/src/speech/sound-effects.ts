/**
 * Short synthetic sound effects for `<|sfx:NAME|>` tags, generated in code so the service needs
 * no audio assets. Every effect is at most one second long, starts and ends at silence (no click
 * at the splice with speech), peaks at half of full scale so it sits at speech level, and is the
 * same on every call: noise comes from a seeded PRNG, never Math.random.
 */

export const SOUND_EFFECTS: Record<string, string> = {
  beep: 'A 200 ms 880 Hz tone.',
  chime: 'A bell that rings out over 0.9 s (inharmonic partials, slow decay).',
  ding: 'A short, bright bell strike (0.5 s).',
  bell: 'Same as chime.',
  click: 'A 15 ms mechanical click.',
  whoosh: 'Band-passed noise sweeping upward over 0.6 s, like something flying past.',
  swoosh: 'Same as whoosh.',
  pop: 'A 80 ms bubble pop: a fast downward pitch sweep.',
  applause: 'One second of overlapping hand claps.',
  laugh: 'Five short "ha" pulses with falling pitch.',
  buzzer: 'A 0.4 s low, harsh buzz (wrong answer).',
  tada: 'A rising four-note fanfare arpeggio (C E G C).',
};

type Generator = (sampleRate: number) => Float64Array;

/** Mulberry32: tiny, fast and deterministic; quality is ample for noise textures. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buffer(seconds: number, sampleRate: number): Float64Array {
  return new Float64Array(Math.max(1, Math.round(seconds * sampleRate)));
}

/** RBJ band-pass (0 dB peak) whose centre may move per sample, for sweeps and formants. */
class BandPass {
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly q: number,
  ) {}

  process(input: number, centreHz: number): number {
    const w0 = (2 * Math.PI * Math.min(centreHz, this.sampleRate * 0.45)) / this.sampleRate;
    const alpha = Math.sin(w0) / (2 * this.q);
    const a0 = 1 + alpha;
    const out = (alpha * input - alpha * this.x2 + 2 * Math.cos(w0) * this.y1 - (1 - alpha) * this.y2) / a0;
    this.x2 = this.x1;
    this.x1 = input;
    this.y2 = this.y1;
    this.y1 = out;
    return out;
  }
}

/** Adds a sine (with optional pitch glide and exponential decay) to `out` from `start` seconds. */
function addTone(
  out: Float64Array,
  sampleRate: number,
  opts: { start?: number; seconds: number; hz: number; endHz?: number; decay?: number; gain?: number },
): void {
  const first = Math.round((opts.start ?? 0) * sampleRate);
  const length = Math.round(opts.seconds * sampleRate);
  const nyquistSafe = sampleRate * 0.45;
  let phase = 0;
  for (let i = 0; i < length && first + i < out.length; i++) {
    const t = i / sampleRate;
    const progress = i / length;
    const hz = opts.endHz === undefined ? opts.hz : opts.hz * Math.pow(opts.endHz / opts.hz, progress);
    if (hz >= nyquistSafe) return;
    phase += (2 * Math.PI * hz) / sampleRate;
    const envelope = opts.decay === undefined ? 1 : Math.exp(-t / opts.decay);
    out[first + i]! += (opts.gain ?? 1) * envelope * Math.sin(phase);
  }
}

/** Raised-cosine fades so every effect starts and ends at zero. */
function fadeEdges(samples: Float64Array, sampleRate: number, fadeSeconds = 0.005): Float64Array {
  const fade = Math.min(Math.floor(samples.length / 2), Math.round(fadeSeconds * sampleRate));
  for (let i = 0; i < fade; i++) {
    const gain = 0.5 - 0.5 * Math.cos((Math.PI * i) / fade);
    samples[i]! *= gain;
    samples[samples.length - 1 - i]! *= gain;
  }
  if (samples.length > 0) samples[samples.length - 1] = 0;
  return samples;
}

const beep: Generator = (sr) => {
  const out = buffer(0.2, sr);
  addTone(out, sr, { seconds: 0.2, hz: 880 });
  return fadeEdges(out, sr, 0.01);
};

/** Bell partials are inharmonic; these ratios are the classic minor-third bell spectrum. */
function bell(seconds: number, baseHz: number, sr: number): Float64Array {
  const out = buffer(seconds, sr);
  const partials: Array<[ratio: number, gain: number, decay: number]> = [
    [1, 1, seconds / 3],
    [2.76, 0.5, seconds / 5],
    [5.4, 0.25, seconds / 8],
    [8.93, 0.12, seconds / 12],
  ];
  for (const [ratio, gain, decay] of partials) addTone(out, sr, { seconds, hz: baseHz * ratio, gain, decay });
  return fadeEdges(out, sr, 0.002);
}

const chime: Generator = (sr) => bell(0.9, 880, sr);
const ding: Generator = (sr) => bell(0.5, 1320, sr);

const click: Generator = (sr) => {
  const out = buffer(0.015, sr);
  const random = seededRandom(7);
  for (let i = 0; i < out.length; i++) out[i] = (random() * 2 - 1) * Math.exp(-i / (0.002 * sr));
  return fadeEdges(out, sr, 0.0005);
};

const whoosh: Generator = (sr) => {
  const seconds = 0.6;
  const out = buffer(seconds, sr);
  const random = seededRandom(1234);
  const filter = new BandPass(sr, 2.5);
  for (let i = 0; i < out.length; i++) {
    const progress = i / out.length;
    const centre = 300 * Math.pow(3500 / 300, progress);
    const envelope = Math.sin(Math.PI * progress) ** 2;
    out[i] = envelope * filter.process(random() * 2 - 1, centre);
  }
  return fadeEdges(out, sr);
};

const pop: Generator = (sr) => {
  const out = buffer(0.08, sr);
  addTone(out, sr, { seconds: 0.08, hz: 900, endHz: 180, decay: 0.02 });
  return fadeEdges(out, sr, 0.001);
};

const applause: Generator = (sr) => {
  const seconds = 1;
  const out = buffer(seconds, sr);
  const random = seededRandom(42);
  const clapSamples = Math.round(0.02 * sr);
  for (let clap = 0; clap < 90; clap++) {
    const start = Math.floor(random() * (out.length - clapSamples));
    const filter = new BandPass(sr, 1.5);
    const centre = 900 + random() * 1800;
    const gain = 0.5 + random() * 0.5;
    for (let i = 0; i < clapSamples; i++) {
      out[start + i]! += gain * Math.exp(-i / (0.004 * sr)) * filter.process(random() * 2 - 1, centre);
    }
  }
  // Swell in and die away rather than cut.
  for (let i = 0; i < out.length; i++) out[i]! *= Math.min(1, (i / out.length) * 6, ((out.length - i) / out.length) * 3);
  return fadeEdges(out, sr);
};

/** A glottal-like sawtooth through two vowel formants ("ah") with a breathy onset per pulse. */
const laugh: Generator = (sr) => {
  const out = buffer(0.85, sr);
  const random = seededRandom(99);
  const pulseSeconds = 0.11;
  for (let pulse = 0; pulse < 5; pulse++) {
    const start = Math.round(pulse * 0.16 * sr);
    const pitch = 270 - pulse * 15;
    const formant1 = new BandPass(sr, 6);
    const formant2 = new BandPass(sr, 9);
    let phase = 0;
    const length = Math.round(pulseSeconds * sr);
    for (let i = 0; i < length && start + i < out.length; i++) {
      const t = i / sr;
      phase = (phase + pitch / sr) % 1;
      const voiced = 1 - 2 * phase;
      const breath = (random() * 2 - 1) * Math.exp(-t / 0.015);
      const source = voiced * Math.min(1, t / 0.02) + breath;
      const envelope = Math.sin((Math.PI * i) / length);
      out[start + i]! += envelope * (formant1.process(source, 750) + 0.6 * formant2.process(source, 1200));
    }
  }
  return fadeEdges(out, sr);
};

const buzzer: Generator = (sr) => {
  const out = buffer(0.4, sr);
  for (let i = 0; i < out.length; i++) {
    const t = i / sr;
    // A square wave's odd harmonics, band-limited by hand so low sample rates do not alias.
    for (let harmonic = 1; harmonic * 150 < sr * 0.45; harmonic += 2) {
      out[i]! += Math.sin(2 * Math.PI * 150 * harmonic * t) / harmonic;
    }
  }
  return fadeEdges(out, sr, 0.01);
};

const tada: Generator = (sr) => {
  const out = buffer(0.95, sr);
  const notes = [523.25, 659.25, 783.99, 1046.5];
  notes.forEach((hz, i) => {
    const start = i * 0.12;
    const seconds = i === notes.length - 1 ? 0.95 - start : 0.3;
    addTone(out, sr, { start, seconds, hz, decay: i === notes.length - 1 ? 0.25 : 0.12 });
    addTone(out, sr, { start, seconds, hz: hz * 2, decay: 0.08, gain: 0.3 });
  });
  return fadeEdges(out, sr);
};

const GENERATORS: Record<string, Generator> = {
  beep,
  chime,
  bell: chime,
  ding,
  click,
  whoosh,
  swoosh: whoosh,
  pop,
  applause,
  laugh,
  buzzer,
  tada,
};

const PEAK = 0.5 * 32767;

function toPcm(samples: Float64Array): Int16Array {
  let peak = 0;
  for (const s of samples) peak = Math.max(peak, Math.abs(s));
  const out = new Int16Array(samples.length);
  if (peak === 0) return out;
  const gain = PEAK / peak;
  for (let i = 0; i < samples.length; i++) out[i] = Math.round(samples[i]! * gain);
  return out;
}

/** The named effect as mono 16-bit PCM at `sampleRate`, or null for a name it does not know. */
export function renderSoundEffect(name: string, sampleRate: number): Int16Array | null {
  if (!Number.isFinite(sampleRate) || sampleRate < 1000) throw new RangeError(`Unsupported sample rate: ${sampleRate}`);
  const generator = Object.hasOwn(GENERATORS, name.trim().toLowerCase()) ? GENERATORS[name.trim().toLowerCase()] : undefined;
  return generator ? toPcm(generator(Math.round(sampleRate))) : null;
}
