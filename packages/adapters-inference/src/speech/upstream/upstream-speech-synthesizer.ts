import type { PresetVoice, SpeechSynthesizer, SynthesisRequest, SynthesisResult, WordTiming } from '@svc/core';
import { applyGain } from '../pcm-gain.js';
import { SpeexResampler } from '../speex-resampler.js';

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
 * for as raw `pcm` and read as it streams in; the core already streams sentence by sentence.
 */
export class UpstreamSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = 'upstream';
  private readonly presets: PresetVoice[];

  private constructor(
    private readonly options: UpstreamSpeechSynthesizerOptions,
    private readonly resampler: SpeexResampler,
  ) {
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
    return new UpstreamSpeechSynthesizer(options, await SpeexResampler.create());
  }

  voices(): PresetVoice[] {
    return [...this.presets];
  }

  async synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/audio/speech`;
    const chunks: Uint8Array[] = [];
    let total = 0;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(this.options.apiKey ? { Authorization: `Bearer ${this.options.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.options.model, input: request.text, voice: request.voice.engineVoice, response_format: 'pcm', speed: Math.min(4, Math.max(0.25, request.prosody.rate)) }),
        signal: combined,
      });
      if (!res.ok || !res.body) {
        const detail = (await res.text().catch(() => '')).slice(0, 200);
        throw new Error(`upstream speech server answered ${res.status}${detail ? `: ${detail}` : ''}`);
      }
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        chunks.push(chunk);
        total += chunk.length;
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) throw new Error(`upstream speech server did not finish within ${this.options.timeoutMs} ms`);
      const message = (error as Error).message;
      throw new Error(message.startsWith('upstream') ? message : `upstream speech server failed: ${message}`);
    }
    const bytes = new Uint8Array(total - (total % 2));
    let offset = 0;
    for (const c of chunks) {
      const n = Math.min(c.length, bytes.length - offset);
      bytes.set(c.subarray(0, n), offset);
      offset += n;
    }
    const native = new Int16Array(bytes.buffer, 0, bytes.length / 2);
    const samples = applyGain(this.resampler.resample(native, UPSTREAM_PCM_RATE, request.sampleRate), request.prosody.volume);
    const seconds = samples.length / request.sampleRate;
    return { samples, sampleRate: request.sampleRate, words: request.wordTimings ? wordsByCharacters(request.text, seconds) : [] };
  }
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
