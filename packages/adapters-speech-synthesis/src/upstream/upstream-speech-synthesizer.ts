import type { PresetVoice, SpeechSynthesizer, SynthesisRequest, SynthesisResult, SynthesisStream, WordTiming } from '@svc/core';
import { applyGain } from '../pcm-gain.js';
import { StreamingResampler } from '@svc/adapters-runtime';
import { floatToInt16 } from '@svc/adapters-runtime';

/** OpenAI's `pcm` response format: 24 kHz, 16-bit signed little-endian, mono. */
export const UPSTREAM_PCM_RATE = 24000;

export interface UpstreamVoice {
  /** The upstream server's voice name, e.g. `alloy` or `af_heart`. */
  voice: string;
  /** Language tag shown in the preset list (default `en`). */
  language: string;
}

export interface UpstreamSpeechSynthesizerOptions {
  /** Base URL ending before `/audio/speech`, e.g. `http://127.0.0.1:8880/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** The `model` field sent upstream. */
  model: string;
  voices: UpstreamVoice[];
  /** Whole-request limit: connect, first byte and the rest of the audio. */
  timeoutMs: number;
}

/** Preset name of an upstream voice: `upstream-<voice>`. */
export function upstreamPresetName(voice: string): string {
  return `upstream-${voice.toLowerCase()}`;
}

/**
 * Any OpenAI-compatible `POST /audio/speech` server as an engine with its own voices. Audio is asked
 * for as raw `pcm` and passed on as its bytes arrive (synthesizeStream), within each sentence too.
 */
export class UpstreamSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = 'upstream';
  private readonly presets: PresetVoice[];

  private constructor(private readonly options: UpstreamSpeechSynthesizerOptions) {
    this.presets = options.voices.map((v) => ({
      name: upstreamPresetName(v.voice),
      engine: this.engine,
      engineVoice: v.voice,
      language: v.language,
      gender: 'neutral',
      description: `Voice ${v.voice} of the upstream speech server`,
    }));
  }

  static async create(options: UpstreamSpeechSynthesizerOptions): Promise<UpstreamSpeechSynthesizer> {
    return new UpstreamSpeechSynthesizer(options);
  }

  voices(): PresetVoice[] {
    return [...this.presets];
  }

  /** The whole sentence (collected from the stream). */
  async synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const stream = this.synthesizeStream(request, signal);
    const parts: Int16Array[] = [];
    for await (const chunk of stream.chunks) parts.push(chunk);
    const samples = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      samples.set(p, at);
      at += p.length;
    }
    return { samples, sampleRate: request.sampleRate, words: stream.words() };
  }

  /**
   * The upstream response passed on as its bytes arrive: each chunk of `pcm` is converted (odd
   * bytes carried to the next chunk), resampled with state kept across chunks, and yielded at once.
   * Errors (a status, a broken connection, the timeout) are thrown where they happen, after the
   * audio already received.
   */
  synthesizeStream(request: SynthesisRequest, signal?: AbortSignal): SynthesisStream {
    let seconds = 0;
    const options = this.options;
    return {
      chunks: (async function* () {
        const timeout = AbortSignal.timeout(options.timeoutMs);
        const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
        // The package's one streaming resampler (pure JS: no state to free), flushed by end().
        const stream = request.sampleRate === UPSTREAM_PCM_RATE ? null : new StreamingResampler(UPSTREAM_PCM_RATE, request.sampleRate);
        const gain = (samples: Int16Array) => applyGain(samples, request.prosody.volume);
        let carry: Uint8Array | null = null;
        let produced = 0;
        try {
          const res = await fetch(`${options.baseUrl.replace(/\/+$/, '')}/audio/speech`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}) },
            body: JSON.stringify({
              model: options.model,
              input: request.text,
              voice: request.voice.engineVoice,
              response_format: 'pcm',
              speed: Math.min(4, Math.max(0.25, request.prosody.rate)),
            }),
            signal: combined,
          });
          if (!res.ok || !res.body) {
            const detail = (await res.text().catch(() => '')).slice(0, 200);
            throw new Error(`upstream speech server answered ${res.status}${detail ? `: ${detail}` : ''}`);
          }
          for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
            const joined: Uint8Array = carry ? concatBytes(carry, bytes) : bytes;
            const even = joined.length - (joined.length % 2);
            carry = even < joined.length ? joined.slice(even) : null;
            if (even === 0) continue;
            const native = new Int16Array(joined.slice(0, even).buffer);
            const out = gain(stream ? floatToInt16(stream.process(native)) : native);
            produced += out.length;
            if (out.length > 0) yield out;
          }
          const tail = stream ? gain(floatToInt16(stream.end())) : new Int16Array(0);
          produced += tail.length;
          if (tail.length > 0) yield tail;
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (timeout.aborted) throw new Error(`upstream speech server did not finish within ${options.timeoutMs} ms`);
          const message = (error as Error).message;
          throw new Error(message.startsWith('upstream') ? message : `upstream speech server failed: ${message}`);
        } finally {
          seconds = produced / request.sampleRate;
        }
      })(),
      words: () => (request.wordTimings ? wordsByCharacters(request.text, seconds) : []),
    };
  }
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** No timings come back: words share the audio in proportion to their length. */
function wordsByCharacters(text: string, seconds: number): WordTiming[] {
  const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  const chars = words.reduce((n, w) => n + w.length, 0);
  let at = 0;
  return words.map((word) => {
    const start = (at / chars) * seconds;
    at += word.length;
    return { word, start, end: (at / chars) * seconds };
  });
}
