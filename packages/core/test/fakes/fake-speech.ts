import type {
  PresetVoice,
  SpeechSynthesizer,
  SynthesisRequest,
  SynthesisResult,
  LanguageDetector,
} from '../../src/speech/speech-synthesizer.js';
import type { AudioCodec, DecodedAudio } from '../../src/speech/audio-codec.js';
import type { ResponseFormat } from '../../src/shared/audio.js';

/** 10 ms of a 200 Hz tone per character; one word timing per word, spread evenly. */
export class ToneSynthesizer implements SpeechSynthesizer {
  calls: SynthesisRequest[] = [];
  constructor(
    readonly engine: string,
    private readonly presets: PresetVoice[],
  ) {}
  voices(): PresetVoice[] {
    return this.presets;
  }
  async synthesize(request: SynthesisRequest, signal?: AbortSignal): Promise<SynthesisResult> {
    this.calls.push(request);
    signal?.throwIfAborted();
    const n = Math.round((request.text.length * 0.01 * request.sampleRate) / request.prosody.rate);
    const samples = new Int16Array(n);
    for (let i = 0; i < n; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 200 * i) / request.sampleRate));
    const words = request.text.split(/\s+/).filter(Boolean);
    const dur = n / request.sampleRate;
    return {
      samples,
      sampleRate: request.sampleRate,
      words: words.map((word, i) => ({ word, start: (i * dur) / words.length, end: ((i + 1) * dur) / words.length })),
    };
  }
}

export const preset = (name: string, engine: string, language: string, gender: PresetVoice['gender'] = 'female'): PresetVoice => ({
  name,
  engine,
  engineVoice: name,
  language,
  gender,
  description: name,
});

/** "Encodes" by prefixing the format name; lets tests see which bytes went through the codec. */
export class TaggingCodec implements AudioCodec {
  async *encode(format: ResponseFormat, _rate: number, pcm: AsyncIterable<Int16Array>): AsyncIterable<Uint8Array> {
    yield new TextEncoder().encode(`${format}:`);
    for await (const chunk of pcm) yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
  async decode(): Promise<DecodedAudio> {
    throw new Error('not used');
  }
}

export class KeywordDetector implements LanguageDetector {
  detect(text: string): string | null {
    if (/\b(le|la|est|bonjour)\b/i.test(text)) return 'fr';
    if (/\b(the|is|hello)\b/i.test(text)) return 'en';
    return null;
  }
}
