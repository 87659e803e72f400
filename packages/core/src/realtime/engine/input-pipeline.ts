import { decodeBase64 } from '../../shared/base64.js';
import { ServiceError } from '../../shared/errors.js';
import { AnalysisInput } from '../audio/analysis-input.js';
import { InputAudioBuffer, type CapturedAudio } from '../audio/input-audio-buffer.js';
import { ANALYSIS_SAMPLE_RATE, type RealtimeAudioPorts, type VoiceActivityStream } from '../ports/audio-pipeline.js';
import { expectString, requireField, type JsonObject } from '../protocol/field-checks.js';
import { invalidRequest } from '../protocol/realtime-error.js';
import { formatSampleRate, type AudioFormat, type PcmRate, type RealtimeSessionConfig } from '../session/session-config.js';
import type { RealtimeUsageObserver } from './engine-deps.js';
import type { SemanticTurnEnd } from './semantic-turn-end.js';

/** Largest `audio` string of one append (spec: about 15 s of 24 kHz PCM16). */
export const MAX_APPEND_BASE64_BYTES = 1_048_576;
/** Without detected speech, server-VAD sessions keep only this much audio (the pre-roll). */
const IDLE_PREROLL_MS = 1000;

/**
 * Where the pipeline's turn events go (the TurnManager). Called in order, one chunk at a time;
 * each promise is awaited before the next event.
 */
export interface TurnEvents {
  /** The new input at the analysis rate, before the detector judges it: the turn in progress hears it at once. */
  heard(samples: Int16Array): void;
  speechStarted(audioStartMs: number): Promise<void>;
  speechStopped(audioEndMs: number): Promise<void>;
  /**
   * The chunk has been judged. `voicedUntilMs`: where the detector last heard speech (null: it does
   * not say); `inputEndMs`: the end of the input so far.
   */
  judged(voicedUntilMs: number | null, inputEndMs: number): Promise<void>;
  /** The detector was closed or reconfigured: speech it was following is no turn. */
  speechDropped(): void;
  /** Whether a turn is being captured (otherwise only the pre-roll of the input is kept). */
  readonly inTurn: boolean;
}

/** What the turn manager takes from the pipeline: the captured input and the analysis-rate onset. */
export interface TurnInput {
  /** Milliseconds of input held (what a commit would take). */
  readonly heldMs: number;
  takeAll(): CapturedAudio;
  /** The audio between two detector times; everything before `endMs` is dropped. */
  takeRange(startMs: number, endMs: number): CapturedAudio;
  dropBefore(ms: number): void;
  /** Empties the held input and restarts the detector (`input_audio_buffer.clear`). */
  clear(): void;
  /** The detector forgets the speech it was following (a commit). */
  resetDetector(): void;
  /** The input as the recognizer hears it (null without a detector): its rate, its end, and its recent past. */
  readonly analysis: Pick<AnalysisInput, 'sampleRate' | 'endMs' | 'since'> | null;
}

export interface InputPipelineDeps {
  audio: RealtimeAudioPorts;
  /** Upper bound of uncommitted input audio held (oldest audio is dropped). */
  maxBufferMs: number;
  usage?: RealtimeUsageObserver;
  /** Aborted when the session ends: no turn event starts after it. */
  sessionSignal: AbortSignal;
  /**
   * Set when a media transport delivers the input as samples at this rate (a WebRTC call's track):
   * the buffer then holds PCM at it whatever `audio.input.format` says, and
   * `input_audio_buffer.append` is refused (the audio arrives on the track).
   */
  mediaInputRate?: PcmRate;
  /** semantic_vad's rule: how soon its detector reports a pause. */
  semantic: SemanticTurnEnd;
}

/** The detector of a server-VAD session and what feeds it. */
interface Detection {
  vad: VoiceActivityStream;
  /** The input resampled once for the detector and the recognizer. */
  analysis: AnalysisInput;
  /** Input kept while nobody speaks: the padded onset of the next turn. */
  preRollMs: number;
}

/**
 * The input half of the turn path (the table in realtime-session-engine.ts): wire audio ->
 * decode (base64, pcm16 / pcmu / opus) -> denoise (`noise_reduction`) -> held in the
 * InputAudioBuffer -> resample once to the analysis rate -> VoiceActivityDetector -> turn events.
 * It knows nothing of items, responses or transcripts; the TurnManager does.
 */
export class InputPipeline implements TurnInput {
  private buffer: InputAudioBuffer | null = null;
  private bufferKey = '';
  private detection: Detection | null = null;
  private detectionKey = '';
  private turns: TurnEvents | null = null;
  /** The recognizer's reservation while audio comes in with turn detection on (a decoder made ready before the first turn). */
  private releaseRecognizer: (() => void) | null = null;

  constructor(private readonly deps: InputPipelineDeps) {}

  /** Where turn events go; set once, before the first chunk. */
  connect(turns: TurnEvents): void {
    this.turns = turns;
  }

  /** (Re)builds the decode stages and the detector when the input format or turn detection changed. */
  configure(config: RealtimeSessionConfig): void {
    const input = config.audio.input;
    const format = this.inputFormat(config);
    const bufferKey = JSON.stringify([format, input.noise_reduction]);
    if (!this.buffer || bufferKey !== this.bufferKey) {
      this.bufferKey = bufferKey;
      this.buffer?.release();
      const { opusCodec, noiseSuppressor } = this.deps.audio;
      const decoder = format.type === 'audio/opus' && opusCodec ? opusCodec.createDecoder(format.frame_size_ms) : null;
      // near_field and far_field run the same suppressor; null runs none.
      const suppression = input.noise_reduction && noiseSuppressor ? noiseSuppressor.open(formatSampleRate(format)) : null;
      this.buffer = new InputAudioBuffer(format, this.deps.maxBufferMs, decoder, suppression);
      this.detectionKey = '';
    }
    const detectionKey = JSON.stringify([format, input.turn_detection]);
    if (detectionKey === this.detectionKey) return;
    this.detectionKey = detectionKey;
    this.closeDetector();
    const detector = this.deps.audio.voiceActivityDetector;
    const td = input.turn_detection;
    // Opus input is decoded as it arrives, so it is turn-detected like pcm (without a codec: manual commits).
    if (!detector || !td || !this.buffer.decodesToPcm) {
      this.releaseRecognizerReservation();
      return;
    }
    const rate = this.buffer.sampleRate;
    const { resampler } = this.deps.audio;
    const analysisRate = resampler ? ANALYSIS_SAMPLE_RATE : rate;
    // Enough recent audio for the padded onset of a turn the detector confirms min_speech_duration late.
    const onsetKeepMs = td.prefix_padding_ms + td.min_speech_duration * 1000 + IDLE_PREROLL_MS;
    // semantic_vad with an end-of-turn model: the turn's end as far back as the model listens.
    const modelKeepMs = td.type === 'semantic_vad' ? (this.deps.audio.endOfTurnModel?.contextMs ?? 0) : 0;
    const keepMs = Math.max(onsetKeepMs, modelKeepMs);
    const analysis = new AnalysisInput(
      resampler && rate !== analysisRate ? resampler.open(rate, analysisRate) : null,
      analysisRate,
      keepMs,
    );
    const vad = detector.open({
      sampleRate: analysisRate,
      // the rate it was captured at, when resampled for analysis (a phone call's 8 kHz)
      ...(rate !== analysisRate ? { sourceSampleRate: rate } : {}),
      threshold: td.threshold,
      prefixPaddingMs: td.prefix_padding_ms,
      silenceDurationMs: this.deps.semantic.detectorSilenceMs(td),
      minSpeechDurationMs: td.min_speech_duration * 1000,
      mode: td.type,
    });
    this.detection = { vad, analysis, preRollMs: Math.max(IDLE_PREROLL_MS, td.prefix_padding_ms) };
  }

  /** `input_audio_buffer.append`: base64 wire audio in the session's format. */
  async append(fields: JsonObject): Promise<void> {
    const audio = expectString(requireField(fields, 'audio', 'audio'), 'audio');
    if (audio.length > MAX_APPEND_BASE64_BYTES) {
      throw invalidRequest(
        'audio_chunk_too_large',
        `'audio' is ${audio.length} base64 bytes; at most ${MAX_APPEND_BASE64_BYTES} are accepted per append.`,
        'audio',
      );
    }
    if (this.deps.mediaInputRate) {
      throw invalidRequest(
        'invalid_value',
        "This session's input audio arrives on its audio track; 'input_audio_buffer.append' is not used.",
        'type',
      );
    }
    const bytes = decodeBase64(audio);
    if (!bytes) throw invalidRequest('invalid_value', "'audio' must be base64-encoded audio bytes.", 'audio');
    await this.ingest(this.appendBytes(bytes));
  }

  /** The buffer's decode of one append; audio it cannot decode (a corrupt opus packet) is the `audio` field's fault. */
  private appendBytes(bytes: Uint8Array): Int16Array {
    try {
      return this.buffer!.append(bytes);
    } catch (err) {
      if (err instanceof ServiceError && !err.serverFault) throw invalidRequest('invalid_value', err.message, 'audio');
      throw err;
    }
  }

  /** Samples of a media transport's input track (at `mediaInputRate`), in arrival order. */
  async appendSamples(samples: Int16Array): Promise<void> {
    if (!this.deps.mediaInputRate || !this.buffer) return;
    await this.ingest(this.buffer.appendSamples(samples));
  }

  /** Decoded (and denoised) input: resampled, judged by the detector, turned into turn events. */
  private async ingest(pcm: Int16Array): Promise<void> {
    const buffer = this.buffer!;
    if (pcm.length > 0) this.deps.usage?.inputAudio((pcm.length / buffer.sampleRate) * 1000);
    const detection = this.detection;
    const turns = this.turns;
    if (!detection || !turns || pcm.length === 0) return;
    // Audio is coming (a microphone opened): a decoder is made ready before the user's first words.
    // A session that never sends audio (text only) holds none.
    this.releaseRecognizer ??= this.deps.audio.speechRecognizer?.reserve?.() ?? null;
    const samples = detection.analysis.append(pcm);
    // The turn in progress hears the new audio at once: its recognizer decodes while the user speaks.
    turns.heard(samples);
    const events = await detection.vad.push(samples);
    for (const event of events) {
      // The session may have closed while the detector ran: nothing new may start then.
      if (this.deps.sessionSignal.aborted) return;
      if (event.type === 'speech_started') await turns.speechStarted(event.audioStartMs);
      else await turns.speechStopped(event.audioEndMs);
    }
    await turns.judged(this.detection?.vad.voicedUntilMs?.() ?? null, buffer.endMs);
    if (!turns.inTurn) buffer.dropBefore(buffer.endMs - detection.preRollMs);
  }

  get heldMs(): number {
    return this.buffer!.durationMs;
  }

  get analysis(): AnalysisInput | null {
    return this.detection?.analysis ?? null;
  }

  takeAll(): CapturedAudio {
    return this.buffer!.takeAll();
  }

  takeRange(startMs: number, endMs: number): CapturedAudio {
    return this.buffer!.takeRange(startMs, endMs);
  }

  dropBefore(ms: number): void {
    this.buffer!.dropBefore(ms);
  }

  clear(): void {
    this.buffer!.clear();
    this.resetDetector();
  }

  resetDetector(): void {
    this.detection?.vad.reset();
  }

  /** Session end: the detector and the codecs are released. */
  close(): void {
    this.closeDetector();
    this.releaseRecognizerReservation();
    this.buffer?.clear();
    this.buffer?.release();
  }

  private releaseRecognizerReservation(): void {
    this.releaseRecognizer?.();
    this.releaseRecognizer = null;
  }

  /** The format the buffer holds: the session's, or PCM at the media track's rate. */
  private inputFormat(config: RealtimeSessionConfig): AudioFormat {
    const rate = this.deps.mediaInputRate;
    return rate ? { type: 'audio/pcm', rate } : config.audio.input.format;
  }

  private closeDetector(): void {
    this.detection?.vad.close?.();
    this.detection = null;
    this.turns?.speechDropped();
  }
}
