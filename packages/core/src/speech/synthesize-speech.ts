import type { Clock } from '../shared/clock.js';
import type { Principal } from '../auth/api-key.js';
import { CONTENT_TYPES, OUTPUT_SAMPLE_RATE, pcmToBytes, silence, type ResponseFormat } from '../shared/audio.js';
import { NothingToSpeakError, NotImplementedYetError, VoiceLanguageUnsupportedError, VoiceNotFoundError } from '../shared/errors.js';
import type { AudioCodec } from './audio-codec.js';
import { CUSTOM_VOICE_PREFIX, type ClonedVoice, type StreamingVoiceConversion, type VoiceCloner } from './cloned-voice.js';
import { deliveryFromInstructions } from './delivery-instructions.js';
import { parseInlineTags, type SpeechSegment } from './inline-tags.js';
import { combineProsody, NEUTRAL_PROSODY, type Prosody } from './prosody.js';
import { splitSentences } from './sentence-splitter.js';
import { renderSoundEffect } from './sound-effects.js';
import { prefetch } from './prefetch.js';
import { JOIN_SILENCE_MS, trimEdges, UTTERANCE_EDGES, type SpeechEdges } from './join-silence.js';
import type { SpeechRequest } from './speech-request.js';
import type { LanguageDetector, PresetVoice, WordTiming } from './speech-synthesizer.js';
import { nullSpeechObserver, type SpeechObserver } from './speech-observer.js';
import { normalizeText } from './text-normalizer.js';
import { DEFAULT_VOICE_NAME, VoiceCatalog } from './voice-catalog.js';

export interface SpeechResult {
  format: ResponseFormat;
  contentType: string;
  sampleRate: number;
  /** The preset that rendered the speech (the base voice when cloning). */
  voice: PresetVoice;
  language: string;
  /** Encoded audio, produced as it is consumed; stop iterating (or abort) to stop synthesis. */
  body: AsyncIterable<Uint8Array>;
  /** Word timings; complete once `body` has been fully consumed. */
  words: WordTiming[];
  /** PCM samples produced so far (the full duration once `body` has been consumed). */
  stats: { samples: number };
  /** The inline tags `instructions` became (`kind:value`), or null when the request had none. */
  appliedInstructions: string[] | null;
}

/** SpeechResult before encoding: the PCM itself, at `sampleRate`. */
export type SpokenSamples = Omit<SpeechResult, 'format' | 'contentType' | 'body'> & {
  /** PCM chunks, produced as they are consumed; stop iterating (or abort) to stop synthesis. */
  samples: AsyncIterable<Int16Array>;
};

/** One unit of work on the way to audio: a sentence to speak, a pause, or a sound effect. */
type RenderStep =
  | { kind: 'speak'; text: string; prosody: Prosody; join?: 'next' | 'previous' }
  | { kind: 'pause'; ms: number }
  | { kind: 'sfx'; name: string };

/**
 * A sound effect, or text with a letter or digit after normalization. Input made only of tags,
 * pauses, punctuation, NUL, zero-width characters or a lone surrogate would render silence (or
 * nothing at all), which a caller would take for a broken engine, so it is refused instead.
 */
function isAudible(step: RenderStep): boolean {
  return step.kind === 'sfx' || (step.kind === 'speak' && /[\p{L}\p{N}]/u.test(step.text));
}

export interface SynthesizeSpeechOptions {
  /** Sentences above this length are split further so the first audio leaves sooner. */
  maxSentenceChars?: number;
  /**
   * When streaming, the first sentence is split further down to about this length (at a clause
   * boundary when there is one): time to first byte is the time to synthesize that first piece.
   */
  firstChunkChars?: number;
  sampleRate?: number;
  /** Times each synthesis for the observer (computeSeconds); without one they are reported as 0. */
  clock?: Pick<Clock, 'now'>;
}

const STOPPED_CLOCK: Pick<Clock, 'now'> = { now: () => 0 };

/**
 * Text to audio, as the speech endpoint defines it: voice resolution (preset, registered or inline
 * cloned), language choice, inline tags, text normalization, sentence-by-sentence synthesis with
 * one sentence of look-ahead, optional voice conversion, then encoding. Everything that can fail
 * with a client error fails before the first byte; after that, the body is a lazy stream.
 */
export class SynthesizeSpeech {
  private readonly sampleRate: number;
  private readonly maxSentenceChars: number;
  private readonly firstChunkChars: number;
  private readonly clock: Pick<Clock, 'now'>;

  constructor(
    private readonly catalog: VoiceCatalog,
    private readonly codec: AudioCodec,
    private readonly detector: LanguageDetector,
    private readonly cloner: VoiceCloner | null = null,
    private readonly observer: SpeechObserver = nullSpeechObserver,
    options: SynthesizeSpeechOptions = {},
  ) {
    this.sampleRate = options.sampleRate ?? OUTPUT_SAMPLE_RATE;
    this.maxSentenceChars = options.maxSentenceChars ?? 200;
    this.firstChunkChars = options.firstChunkChars ?? 50;
    this.clock = options.clock ?? STOPPED_CLOCK;
  }

  /** `edges`: as for `speak`; a whole request starts and ends with the voice. */
  async execute(
    request: SpeechRequest,
    principal: Principal | null,
    signal?: AbortSignal,
    edges: SpeechEdges = UTTERANCE_EDGES,
  ): Promise<SpeechResult> {
    const { samples, ...speech } = await this.speak(request, principal, signal, edges);
    const body =
      request.responseFormat === 'pcm'
        ? mapAsync(samples, pcmToBytes)
        : this.codec.encode(request.responseFormat, this.sampleRate, samples, signal);
    return { ...speech, format: request.responseFormat, contentType: CONTENT_TYPES[request.responseFormat], body };
  }

  /**
   * The same speech as samples, not encoded (`request.responseFormat` is not used): for a caller
   * whose transport encodes itself (realtime replies), so the samples are not turned into bytes
   * and back. `edges`: the silence kept where the speech begins and ends (a realtime reply speaks
   * one sentence at a time, and only its first and last sentences are edges).
   */
  async speak(
    request: SpeechRequest,
    principal: Principal | null,
    signal?: AbortSignal,
    edges: SpeechEdges = UTTERANCE_EDGES,
  ): Promise<SpokenSamples> {
    const cloned = await this.resolveCustomVoice(request, principal, signal);
    // Instructions act as tags opening the input, so the input's own tags take over from them.
    const delivery = request.instructions === null ? null : deliveryFromInstructions(request.instructions);
    const segments = parseInlineTags((delivery?.prefix ?? '') + request.input, {
      ...NEUTRAL_PROSODY,
      rate: request.speed * (cloned?.rate ?? 1),
    });
    const plainText = segments.map((s) => (s.kind === 'text' ? s.text : ' ')).join(' ');
    const named = cloned ? this.catalog.get(cloned.basePreset) : this.presetByName(request.voice, request.tnLanguage);
    const language = (request.tnLanguage ?? (named ? null : this.detector.detect(plainText)) ?? named?.language ?? 'en').toLowerCase();
    const voice = named ?? this.catalog.defaultFor(language);
    const steps = this.plan(segments, request.enableTn, request.tnLanguage ?? language);
    if (!steps.some(isAudible)) throw new NothingToSpeakError();
    if (request.stream) this.splitFirstSpokenStep(steps);

    const words: WordTiming[] = [];
    const stats = { samples: 0 };
    const tenant = principal?.apiKeyId;
    const samples = this.render(steps, edges, voice, words, stats, { wantTimings: request.timestamps, cloned, tenant }, signal);
    return { sampleRate: this.sampleRate, voice, language, samples, words, stats, appliedInstructions: delivery?.applied ?? null };
  }

  /** The preset a request names (an alias: for the language asked for), or undefined for `default` (chosen later from the language). */
  private presetByName(name: string, language: string | null): PresetVoice | undefined {
    if (name === DEFAULT_VOICE_NAME) {
      // `default` picks its voice by language: one no voice speaks would be spoken in English while the answer named it.
      if (language !== null && !this.catalog.speaks(language)) throw new VoiceLanguageUnsupportedError(name, language);
      return undefined;
    }
    const preset = this.catalog.resolve(name, language);
    if (!preset) throw new VoiceNotFoundError(name);
    return preset;
  }

  private async resolveCustomVoice(request: SpeechRequest, principal: Principal | null, signal?: AbortSignal): Promise<ClonedVoice | null> {
    const wantsRegistered = request.voice.startsWith(CUSTOM_VOICE_PREFIX);
    if (!wantsRegistered && request.refAudio === null) return null;
    if (!this.cloner) {
      if (wantsRegistered) throw new VoiceNotFoundError(request.voice);
      throw new NotImplementedYetError('Voice cloning is not enabled on this server.', 'ref_audio');
    }
    if (wantsRegistered) {
      if (!principal) throw new VoiceNotFoundError(request.voice);
      return this.cloner.registered(principal, request.voice, signal);
    }
    return this.cloner.inline(principal, request.refAudio!, request.refText, signal);
  }

  private plan(segments: SpeechSegment[], enableTn: boolean, language: string): RenderStep[] {
    const steps: RenderStep[] = [];
    for (const segment of segments) {
      if (segment.kind !== 'text') {
        steps.push(segment);
        continue;
      }
      const text = enableTn ? normalizeText(segment.text, language) : segment.text;
      for (const sentence of splitSentences(text, this.maxSentenceChars)) {
        steps.push({ kind: 'speak', text: sentence, prosody: segment.prosody });
      }
    }
    return steps;
  }

  private splitFirstSpokenStep(steps: RenderStep[]): void {
    const index = steps.findIndex((s) => s.kind === 'speak');
    const first = steps[index];
    if (!first || first.kind !== 'speak' || first.text.length <= this.firstChunkChars) return;
    const pieces = splitSentences(first.text, this.firstChunkChars);
    // Only the head is cut short; the rest stays one natural-sounding piece.
    const rest = first.text.slice(first.text.indexOf(pieces[0]!) + pieces[0]!.length).trim();
    // The two pieces join mid-sentence: the silence between them is cut to a comma's (join-silence.ts).
    const replacement: RenderStep[] = [
      { kind: 'speak', text: pieces[0]!, prosody: first.prosody, ...(rest ? { join: 'next' as const } : {}) },
    ];
    if (rest) replacement.push({ kind: 'speak', text: rest, prosody: first.prosody, join: 'previous' });
    steps.splice(index, 1, ...replacement);
  }

  /**
   * PCM chunks in order, one per step. The next sentence is already being synthesized while the
   * current one is consumed, so a stream has no gap between sentences on a multi-core engine.
   */
  private async *render(
    steps: RenderStep[],
    edges: SpeechEdges,
    voice: PresetVoice,
    words: WordTiming[],
    stats: { samples: number },
    { wantTimings, cloned, tenant }: { wantTimings: boolean; cloned: ClonedVoice | null; tenant: string | undefined },
    signal?: AbortSignal,
  ): AsyncGenerator<Int16Array> {
    const engine = this.catalog.engineFor(voice);
    const conversion: StreamingVoiceConversion | null = cloned ? cloned.startConversion(this.sampleRate) : null;
    let offsetSamples = 0;
    const start = (step: RenderStep): StepAudio => {
      if (step.kind === 'pause') return wholeStep(Promise.resolve({ samples: silence(step.ms, this.sampleRate), words: [] }));
      if (step.kind === 'sfx') {
        return wholeStep(Promise.resolve({ samples: renderSoundEffect(step.name, this.sampleRate) ?? new Int16Array(0), words: [] }));
      }
      const began = this.clock.now();
      const request = {
        text: step.text,
        voice,
        prosody: combineProsody(NEUTRAL_PROSODY, step.prosody),
        sampleRate: this.sampleRate,
        wordTimings: wantTimings,
        ...(tenant === undefined ? {} : { tenant }),
      };
      const observe = (samples: number) =>
        this.observer.synthesized({
          engine: engine.engine,
          audioSeconds: samples / this.sampleRate,
          computeSeconds: (this.clock.now() - began) / 1000,
        });
      if (engine.synthesizeStream) {
        const stream = engine.synthesizeStream(request, signal);
        // Read ahead from now on (the look-ahead step downloads while the current one is consumed).
        return { chunks: prefetch(stream.chunks, (samples) => observe(samples)), words: () => stream.words() };
      }
      return wholeStep(
        engine.synthesize(request, signal).then((r) => {
          observe(r.samples.length);
          return r;
        }),
      );
    };

    let pending = steps.length > 0 ? start(steps[0]!) : null;
    for (let i = 0; pending; i++) {
      const current = pending;
      // Look-ahead: start the next step now; a failure is observed when it is consumed.
      pending = i + 1 < steps.length ? start(steps[i + 1]!) : null;
      signal?.throwIfAborted();
      let produced = 0;
      let trimmedLead = 0;
      const step = steps[i]!;
      const chunks =
        step.kind === 'speak'
          ? trimEdges(current.chunks, stepEdges(step, i === 0, i === steps.length - 1, edges), this.sampleRate, (n) => (trimmedLead = n))
          : current.chunks;
      for await (const chunk of chunks) {
        produced += chunk.length;
        const out = conversion ? await conversion.process(chunk) : chunk;
        stats.samples += out.length;
        if (out.length > 0) yield out;
      }
      // A trimmed edge moves the step's words earlier; none may end after the audio that remains.
      const shift = (offsetSamples - trimmedLead) / this.sampleRate;
      const endS = (offsetSamples + produced) / this.sampleRate;
      const at = (t: number) => Math.min(endS, Math.max(offsetSamples / this.sampleRate, t + shift));
      for (const w of current.words()) words.push({ word: w.word, start: at(w.start), end: at(w.end) });
      offsetSamples += produced;
    }
    if (conversion) {
      const tail = await conversion.flush();
      stats.samples += tail.length;
      if (tail.length > 0) yield tail;
    }
  }
}

/**
 * The silence one spoken step keeps at its ends: a mid-sentence join keeps a comma's pause, the
 * speech's own first and last steps follow `edges`, and sentence joins stay as the engine made them.
 */
function stepEdges(step: Extract<RenderStep, { kind: 'speak' }>, first: boolean, last: boolean, edges: SpeechEdges): SpeechEdges {
  return {
    leadingKeepMs: step.join === 'previous' ? JOIN_SILENCE_MS : first ? edges.leadingKeepMs : null,
    trailingKeepMs: step.join === 'next' ? JOIN_SILENCE_MS : last ? edges.trailingKeepMs : null,
  };
}

/** One step's audio: its chunks in order and, once they have ended, its word timings. */
interface StepAudio {
  chunks: AsyncIterable<Int16Array>;
  words(): WordTiming[];
}

/** A step whose audio comes whole (a pause, a sound effect, an engine without streaming). */
function wholeStep(result: Promise<{ samples: Int16Array; words: WordTiming[] }>): StepAudio {
  result.catch(() => undefined); // a look-ahead step's failure is reported when it is consumed
  let words: WordTiming[] = [];
  return {
    chunks: (async function* () {
      const r = await result;
      words = r.words;
      yield r.samples;
    })(),
    words: () => words,
  };
}

async function* mapAsync<T, U>(source: AsyncIterable<T>, fn: (t: T) => U): AsyncGenerator<U> {
  for await (const item of source) yield fn(item);
}
