import type { BlobStore } from '../../src/shared/blob-store.js';
import { InvalidAudioError } from '../../src/shared/errors.js';
import type { AudioCodec, DecodedAudio } from '../../src/speech/audio-codec.js';
import type { StreamingVoiceConversion } from '../../src/speech/cloned-voice.js';
import { decodeInlineMedia, parseMediaReference } from '../../src/media/inline-media.js';
import type { MediaFetcher, MediaFetchOptions, MediaInput } from '../../src/media/media-fetcher.js';
import type { PcmAudio } from '../../src/shared/audio.js';
import type { PresetVoice, SpeechSynthesizer, SynthesisRequest, SynthesisResult } from '../../src/speech/speech-synthesizer.js';
import type { VoiceAnalyzer } from '../../src/voices/voice-analyzer.js';
import type { VoiceConverter } from '../../src/voices/voice-converter.js';
import type { BaseVoiceCandidate, SpeakerFeatures, VoiceProfile } from '../../src/voices/voice-profile.js';
import type { VoicePage, VoicePageRequest, VoiceRepository } from '../../src/voices/voice-repository.js';
import type { VoiceRecord } from '../../src/voices/voice.js';

/** Same contract as the TypeORM repository, in a Map (rows keyed by api key + id). */
export class InMemoryVoiceRepository implements VoiceRepository {
  rows = new Map<string, VoiceRecord>();
  failNextInsert: Error | null = null;
  calls: string[] = [];

  async insertIfAbsent(record: VoiceRecord) {
    this.calls.push(`insert ${record.id}`);
    if (this.failNextInsert) {
      const err = this.failNextInsert;
      this.failNextInsert = null;
      throw err;
    }
    const key = `${record.apiKeyId}/${record.id}`;
    const existing = this.rows.get(key);
    if (existing) return { record: existing, created: false };
    this.rows.set(key, structuredClone(record));
    return { record, created: true };
  }
  async find(apiKeyId: string, id: string) {
    this.calls.push(`find ${apiKeyId} ${id}`);
    return this.rows.get(`${apiKeyId}/${id}`) ?? null;
  }
  async count(apiKeyId: string) {
    return [...this.rows.values()].filter((v) => v.apiKeyId === apiKeyId).length;
  }
  async list(apiKeyId: string, page: VoicePageRequest): Promise<VoicePage> {
    const mine = [...this.rows.values()]
      .filter((v) => v.apiKeyId === apiKeyId)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .filter((v) => !page.after || v.createdAt < page.after.createdAt || (v.createdAt === page.after.createdAt && v.id < page.after.id));
    return { voices: mine.slice(0, page.limit).map(({ profile: _p, ...summary }) => summary), hasMore: mine.length > page.limit };
  }
  async delete(apiKeyId: string, id: string) {
    this.calls.push(`delete ${apiKeyId} ${id}`);
    const key = `${apiKeyId}/${id}`;
    const row = this.rows.get(key) ?? null;
    this.rows.delete(key);
    return row;
  }
}

export class MemoryBlobStore implements BlobStore {
  blobs = new Map<string, Uint8Array>();
  log: string[] = [];
  async put(key: string, data: Uint8Array) {
    this.log.push(`put ${key}`);
    this.blobs.set(key, data);
  }
  async get(key: string) {
    return this.blobs.get(key) ?? null;
  }
  async delete(key: string) {
    this.log.push(`delete ${key}`);
    this.blobs.delete(key);
  }
  async exists(key: string) {
    return this.blobs.has(key);
  }
}

/**
 * Test "audio container": `PCM16:<metadata>;` then little-endian samples at the requested rate.
 * Two files with different metadata hold the same audio (as WAV and FLAC of one clip would).
 */
export function testAudio(samples: Int16Array, metadata = ''): Uint8Array {
  const head = new TextEncoder().encode(`PCM16:${metadata};`);
  const out = new Uint8Array(head.length + samples.byteLength);
  out.set(head, 0);
  out.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength), head.length);
  return out;
}

export class TestAudioCodec implements AudioCodec {
  decodes = 0;
  async *encode(): AsyncIterable<Uint8Array> {
    throw new Error('not used');
  }
  async decode(bytes: Uint8Array, sampleRate: number): Promise<DecodedAudio> {
    this.decodes++;
    if (new TextDecoder('latin1').decode(bytes.subarray(0, 6)) !== 'PCM16:') throw new InvalidAudioError('not audio');
    const start = bytes.indexOf(';'.charCodeAt(0)) + 1;
    const pcm = bytes.slice(start);
    return { samples: new Int16Array(pcm.buffer, 0, Math.floor(pcm.length / 2)), sampleRate, format: 'test' };
  }
}

/** Inline forms only (the URL path belongs to the network adapter and its own tests). */
export class InlineMediaFetcher implements MediaFetcher {
  async fetch(input: MediaInput, options: MediaFetchOptions): Promise<Uint8Array> {
    if (input instanceof Uint8Array) return input;
    const ref = parseMediaReference(input, options.param);
    if (ref.kind === 'url') throw new Error('no network in core tests');
    return decodeInlineMedia(ref.base64, options.param, 10 * 1024 * 1024, options);
  }
}

/** A tone whose frequency the fake analyzer reads back as the speaker's F0. */
export function tone(hz: number, seconds = 2, amplitude = 8000, sampleRate = 16000): Int16Array {
  return new Int16Array(Math.round(seconds * sampleRate)).map((_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate)),
  );
}

export function features(f0: number, overrides: Partial<SpeakerFeatures> = {}): SpeakerFeatures {
  return {
    f0MedianHz: f0,
    f0LowHz: f0 * 0.9,
    f0HighHz: f0 * 1.1,
    formantsHz: [500, 1500, 2500],
    formantScale: 1,
    spectralEnvelopeDb: [0, 0],
    envelopeBandsHz: [500, 2000],
    mfccMean: [0],
    mfccStd: [1],
    syllableRateFromEnergy: 4,
    syllableRateFromText: null,
    voicedSeconds: 1,
    ...overrides,
  };
}

/** Reads F0 from zero crossings: enough to tell test tones apart. */
export class ZeroCrossingAnalyzer implements VoiceAnalyzer {
  readonly name = 'test-analyzer';
  calls = 0;
  async analyze(audio: PcmAudio, transcript: string | null): Promise<SpeakerFeatures> {
    this.calls++;
    let crossings = 0;
    for (let i = 1; i < audio.samples.length; i++) if (audio.samples[i - 1]! < 0 !== audio.samples[i]! < 0) crossings++;
    const f0 = Math.round(crossings / 2 / (audio.samples.length / audio.sampleRate));
    const seconds = audio.samples.length / audio.sampleRate;
    return features(f0, { syllableRateFromText: transcript ? transcript.split(/\s+/).length / seconds : null });
  }
}

/** Picks the base with the nearest F0; converts by negating samples (visible in tests). */
export class NegatingConverter implements VoiceConverter {
  started: VoiceProfile[] = [];
  chooseBase(target: SpeakerFeatures, candidates: readonly BaseVoiceCandidate[]): BaseVoiceCandidate {
    return [...candidates].sort(
      (a, b) => Math.abs(a.speaker.f0MedianHz - target.f0MedianHz) - Math.abs(b.speaker.f0MedianHz - target.f0MedianHz),
    )[0]!;
  }
  start(profile: VoiceProfile): StreamingVoiceConversion {
    this.started.push(profile);
    return {
      process: async (chunk) => chunk.map((s) => -s),
      flush: async () => new Int16Array(0),
    };
  }
}

/** Each preset speaks a tone at its own F0, so base-voice measurement can be checked. */
export class PresetToneSynthesizer implements SpeechSynthesizer {
  readonly engine = 'tone';
  calls = 0;
  constructor(private readonly f0ByPreset: Record<string, number>) {}
  voices(): PresetVoice[] {
    return Object.keys(this.f0ByPreset).map((name) => ({
      name,
      engine: 'tone',
      engineVoice: name,
      language: 'en-us',
      gender: 'female',
      description: name,
    }));
  }
  async synthesize(request: SynthesisRequest): Promise<SynthesisResult> {
    this.calls++;
    return { samples: tone(this.f0ByPreset[request.voice.name]!, 1, 8000, request.sampleRate), sampleRate: request.sampleRate, words: [] };
  }
}
