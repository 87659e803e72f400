import { readFileSync, readdirSync } from 'node:fs';
import { RnnoiseNoiseSuppressor, SileroVoiceActivityDetector } from '@svc/adapters-speech-recognition';
import { round } from './harness.js';

const RATE = 16000;
const SECONDS = 30;
/** The server's default server_vad settings (docs/realtime.md). */
const VAD = {
  sampleRate: RATE,
  threshold: 0.55,
  prefixPaddingMs: 300,
  silenceDurationMs: 500,
  minSpeechDurationMs: 125,
  mode: 'server_vad' as const,
};

/** A deterministic uniform generator in [-1, 1) (the same noise on every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x40000000 - 1;
}

/** Noise shapes at unit-ish scale; each is normalized to the wanted RMS level afterwards. */
const NOISES: Record<string, (n: number) => Float32Array> = {
  white: (n) => Float32Array.from({ length: n }, random(1)),
  // Paul Kellet's economy pink filter: -3 dB/octave, like fans and room noise.
  pink: (n) => {
    const r = random(2);
    let b0 = 0;
    let b1 = 0;
    let b2 = 0;
    return Float32Array.from({ length: n }, () => {
      const w = r();
      b0 = 0.99765 * b0 + w * 0.099046;
      b1 = 0.963 * b1 + w * 0.2965164;
      b2 = 0.57 * b2 + w * 1.0526913;
      return b0 + b1 + b2 + w * 0.1848;
    });
  },
  // Integrated white noise: rumble (traffic, a car).
  brown: (n) => {
    const r = random(3);
    let y = 0;
    return Float32Array.from({ length: n }, () => (y = 0.995 * y + 0.05 * r()));
  },
  // Mains hum: 50 Hz and its odd harmonics, with a little hiss.
  hum: (n) => {
    const r = random(4);
    return Float32Array.from({ length: n }, (_, i) => {
      const t = i / RATE;
      return Math.sin(2 * Math.PI * 50 * t) + 0.5 * Math.sin(2 * Math.PI * 150 * t) + 0.3 * Math.sin(2 * Math.PI * 250 * t) + 0.05 * r();
    });
  },
  // Keyboard-like clicks: 5 ms decaying bursts at irregular 80-300 ms intervals over faint hiss.
  clicks: (n) => {
    const r = random(5);
    const out = new Float32Array(n);
    for (let at = 0; at < n; at += Math.round(RATE * (0.08 + 0.11 * (r() + 1)))) {
      for (let k = 0; k < RATE * 0.005 && at + k < n; k++) out[at + k] = r() * Math.exp(-k / (RATE * 0.001));
    }
    for (let i = 0; i < n; i++) out[i] = out[i]! + 0.01 * r();
    return out;
  },
  babble,
};

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';

/** The LibriVox sentences, 16 kHz, as floats. */
function speech(): Float32Array[] {
  return readdirSync(LIBRIVOX)
    .filter((f) => f.endsWith('.wav'))
    .sort()
    .map((f) => {
      const wav = readFileSync(`${LIBRIVOX}/${f}`);
      const data = wav.subarray(wav.indexOf('data') + 8);
      return Float32Array.from(new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length)));
    });
}

/** Babble: the five sentences played backwards, three at a time with offsets (speech-like, no words). */
function babble(n: number): Float32Array {
  const clips = speech().map((c) => c.reverse());
  const out = new Float32Array(n);
  for (let voice = 0; voice < 3; voice++) {
    let at = voice * 7000;
    for (let k = voice; at < n; k++) {
      const clip = clips[k % clips.length]!;
      for (let i = 0; i < clip.length && at + i < n; i++) out[at + i] = out[at + i]! + clip[i]!;
      at += clip.length;
    }
  }
  return out;
}

function atLevel(shape: Float32Array, dbfs: number): Int16Array {
  const rms = Math.sqrt(shape.reduce((p, v) => p + v * v, 0) / shape.length);
  const gain = (32768 * 10 ** (dbfs / 20)) / rms;
  return Int16Array.from(shape, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
}

/**
 * VAD false starts on noise alone: 30 s of each noise (white, pink, brown, mains hum, keyboard-like
 * clicks, babble of reversed speech) at -50, -35, -20 and -10 dBFS RMS, streamed in 100 ms appends through the session's input
 * path as the server runs it (RNNoise when `noise_reduction` is set, then Silero VAD with the default
 * server_vad settings). Each `speech_started` is a false start (a turn the caller did not take);
 * a control checks that the same path starts the five turns of real speech.
 */
export async function benchVadNoise(): Promise<Record<string, number | string>> {
  const detector = await SileroVoiceActivityDetector.create();
  const suppressor = await RnnoiseNoiseSuppressor.create();
  const out: Record<string, number | string> = {};
  const totals = { none: 0, near_field: 0 };
  let cases = 0;
  for (const [name, make] of Object.entries(NOISES)) {
    const shape = make(RATE * SECONDS);
    for (const dbfs of [-50, -35, -20, -10]) {
      const noise = atLevel(shape, dbfs);
      const starts: Record<string, number> = {};
      for (const reduction of ['none', 'near_field'] as const) {
        const vad = detector.open(VAD);
        const rnnoise = reduction === 'near_field' ? suppressor.open(RATE) : null;
        let count = 0;
        for (let i = 0; i < noise.length; i += RATE / 10) {
          const chunk = noise.slice(i, i + RATE / 10);
          const events = await vad.push(rnnoise ? rnnoise.process(chunk) : chunk);
          count += events.filter((e) => e.type === 'speech_started').length;
        }
        vad.close();
        rnnoise?.close();
        starts[reduction] = count;
        totals[reduction] += count;
      }
      cases++;
      out[`${name} at ${dbfs} dBFS: false starts in ${SECONDS} s, noise_reduction null / near_field`] =
        `${starts.none} / ${starts.near_field}`;
    }
  }
  out[`all ${cases} noise cases: false starts per minute, noise_reduction null / near_field`] =
    `${round((totals.none * 60) / (cases * SECONDS), 2)} / ${round((totals.near_field * 60) / (cases * SECONDS), 2)}`;
  // The control: the same path does start turns on real speech (five sentences with pauses).
  const sentences = speech();
  const spoken = new Int16Array(sentences.reduce((n, c) => n + c.length + RATE, 0));
  let at = 0;
  for (const c of sentences) {
    spoken.set(Int16Array.from(c), at);
    at += c.length + RATE;
  }
  for (const reduction of ['none', 'near_field'] as const) {
    const vad = detector.open(VAD);
    const rnnoise = reduction === 'near_field' ? suppressor.open(RATE) : null;
    let count = 0;
    for (let i = 0; i < spoken.length; i += RATE / 10) {
      const chunk = spoken.slice(i, i + RATE / 10);
      count += (await vad.push(rnnoise ? rnnoise.process(chunk) : chunk)).filter((e) => e.type === 'speech_started').length;
    }
    vad.close();
    rnnoise?.close();
    out[`control, the 5 LibriVox sentences: turns started, noise_reduction ${reduction}`] = count;
  }
  await detector.close();
  return out;
}
