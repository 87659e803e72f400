import type { Principal } from '../../auth/api-key.js';
import type { PcmAudio } from '../../shared/audio.js';
import type { SpeechEdges } from '../../speech/join-silence.js';
import type { EndOfTurnModel } from './end-of-turn-model.js';

/**
 * Ports of the realtime audio pipeline. The engine already drives them (turns, transcripts, spoken
 * replies); the engines behind them (Silero VAD, pocketsphinx, flite/espeak) are wired by the server.
 * Every one is optional: without a detector server-VAD sessions only turn on manual commits, without
 * a recognizer user audio items have a null transcript, without a speaker audio replies carry their
 * transcript but no audio.
 */

/**
 * Turn boundaries in ms of the stream's input audio. `audioStartMs` is the speech onset moved back
 * by `prefixPaddingMs` (never below 0): the engine reports it as `audio_start_ms` and captures the
 * turn from there. `audioEndMs` is where speech ended (the event itself comes silenceDurationMs later).
 */
export type VoiceActivityEvent = { type: 'speech_started'; audioStartMs: number } | { type: 'speech_stopped'; audioEndMs: number };

export interface VoiceActivityOptions {
  sampleRate: number;
  /**
   * The rate the audio was captured at, when `sampleRate` is a resampling of it (a phone call's
   * 8 kHz G.711 heard at 16 kHz): the detector may score the band the audio really has.
   */
  sourceSampleRate?: number;
  threshold: number;
  prefixPaddingMs: number;
  silenceDurationMs: number;
  minSpeechDurationMs: number;
  /** `semantic_vad` may wait longer at the end of a turn. */
  mode: 'server_vad' | 'semantic_vad';
}

/** One detector state per session: feed it PCM in order, it reports turn boundaries. */
export interface VoiceActivityStream {
  /** `audio` times are milliseconds since the start of the session's input audio. */
  push(samples: Int16Array): VoiceActivityEvent[] | Promise<VoiceActivityEvent[]>;
  /**
   * Optional: the end (ms) of the last audio judged speech in the segment in progress, null between
   * segments. Barge-in measures how long the user has voiced speech with it (the trailing silence
   * before `speech_stopped` does not count); without it, the audio since the onset counts.
   */
  voicedUntilMs?(): number | null;
  reset(): void;
  close?(): void;
}

export interface VoiceActivityDetector {
  open(options: VoiceActivityOptions): VoiceActivityStream;
  /** Frames scored and model runs since start, for a detector that scores sessions' frames together (the metrics); null before it has loaded. */
  batchStats?(): { frames: number; runs: number } | null;
  /** Releases the engine (its sessions, threads); called once at shutdown. */
  close?(): Promise<void> | void;
}

export interface RecognitionOptions {
  language: string | null;
  principal: Principal;
  /**
   * One object per session (the same one for all its turns). A recognizer that adapts to the
   * speaker (pocketsphinx's cepstral mean) keys that state on it, so a caller's turns build on
   * their own earlier turns and never on another session's audio. Optional; may be ignored.
   */
  speaker?: object;
}

/**
 * One turn being recognized while the user speaks. Audio is written as it arrives (any rate the
 * stream was opened with); `partial` is the hypothesis so far; `finish()` runs only the final pass.
 * Aborting the stream's signal (or `cancel()`) releases its decoder at once; `finish()` then rejects.
 */
export interface RecognitionStream {
  write(samples: Int16Array): void;
  /** The hypothesis of the audio written so far ('' before the first word). */
  readonly partial: string;
  /**
   * Optional: milliseconds of written audio the decoder has not reached yet, i.e. that `partial`
   * does not reflect (audio a decoder holds back for the final pass does not count). A reply begun
   * on the partial words waits for 0; absent, the partial is taken as current.
   */
  readonly behindMs?: number;
  /**
   * Optional: milliseconds of speech the decoder heard after the last word of `partial` and made no
   * word of (yet): a mumbled or creaky last word (before the first word: in all the audio decoded).
   * Silence, breath and noise do not count, nor audio not decoded yet (see `behindMs`). At a pause,
   * semantic_vad sets the partial words aside when there is this much of it (their last word is not
   * the speech's last); absent or undefined, the partial's last word is taken as the speech's.
   */
  readonly unrecognizedSpeechMs?: number;
  finish(): Promise<{ text: string }>;
  cancel(): void;
}

export interface SpeechRecognizer {
  /** One-shot recognition of a whole turn (manual commits, decoded opus). */
  transcribe(audio: PcmAudio, options: RecognitionOptions, signal?: AbortSignal): Promise<{ text: string }>;
  /**
   * Streaming recognition of the turn in progress (server VAD). Opens at once; a recognizer with
   * a bounded pool of decoders may hold the written audio until one is free.
   */
  openStream?(options: RecognitionOptions & { sampleRate: number }, signal: AbortSignal): RecognitionStream;
  /**
   * A session that will stream turns (turn detection on, audio coming in) holds a reservation while
   * it does: a recognizer with a pool of decoders makes one ready for it before its first turn,
   * instead of loading it while the user speaks. Returns the release.
   */
  reserve?(): () => void;
  /** How far behind real time its decoders run, for a recognizer with a pool of them (the capacity admission reads it). */
  readonly load?: RecognizerLoad;
  /** Stops its decoders, processes or threads; called once at shutdown. */
  close?(): Promise<void> | void;
}

/** What a recognizer with a pool of decoders says about them. */
export interface RecognizerLoad {
  /** Audio given to the decoders and not decoded yet, the worst of them (ms). */
  backlogMs: number;
  /** Turns waiting for a free decoder. */
  waiting: number;
  /** Seconds of audio decoded since start (absent for recognizers that do not count). */
  decodedSeconds?: number;
}

/** Whether user audio can be transcribed, and if not why (npm start's banner, /readyz). */
export interface SpeechRecognitionStatus {
  available: boolean;
  detail: string;
}

export interface ReplySpeechRequest {
  /** One sentence (or clause) of the reply, plain text. */
  text: string;
  /** `default`, a preset name or a caller's `voice_...` id (already validated). */
  voice: string;
  principal: Principal;
  /** Rate the returned PCM must have. */
  sampleRate: number;
  /** `audio.output.speed`. */
  speed: number;
  /** The silence kept at the sentence's ends (its place in the reply decides); default: trimmed both ends. */
  edges?: SpeechEdges;
}

/** Speaks reply text in the session's voice: mono s16 PCM chunks, as soon as they are ready. */
export interface ReplySpeaker {
  speak(request: ReplySpeechRequest, signal: AbortSignal): AsyncIterable<Int16Array>;
  /**
   * A spoken reply is likely soon (a session that speaks its replies heard its user start speaking):
   * an engine that is loaded but not yet warm may warm up now, in the background. Returns at once.
   */
  warmUp?(): void;
}

/** A session's opus input: one decoder state, fed one packet per append, in order. */
export interface OpusPacketDecoder {
  /** 48 kHz PCM of one packet; throws an invalid-request error for a corrupt packet (the stream goes on). */
  decode(packet: Uint8Array): Int16Array;
  release(): void;
}

/** Opus in both directions needs a codec; pcm and pcmu are handled inside the core. */
export interface OpusCodec {
  /** Decodes opus packets (one per append) to PCM at 48 kHz. */
  decode(packets: Uint8Array[], frameSizeMs: number): Promise<PcmAudio>;
  /** A streaming decoder for input appended packet by packet (server VAD runs on its PCM). */
  createDecoder(frameSizeMs: number): OpusPacketDecoder;
  /** A stateful encoder producing one opus packet per frame. */
  createEncoder(frameSizeMs: number): { encode(pcm48k: Int16Array): Uint8Array[]; flush(): Uint8Array[] };
}

/** One session's noise reduction: as many samples out as in (a constant small delay is allowed). */
export interface NoiseSuppressionStream {
  process(samples: Int16Array): Int16Array;
  close(): void;
}

/** `audio.input.noise_reduction`: runs on the input before VAD and recognition. */
export interface NoiseSuppressor {
  open(sampleRate: number): NoiseSuppressionStream;
}

/**
 * The one rate the analysis engines are given when a resampler is wired: Silero VAD and
 * pocketsphinx (and the usual neural recognizers) all take 16 kHz.
 */
export const ANALYSIS_SAMPLE_RATE = 16000;

/** One direction's stateful rate conversion: chunks in order, the output keeps the input's timeline. */
export interface ResamplerStream {
  process(samples: Int16Array): Int16Array;
}

/**
 * Resamples a session's input once to ANALYSIS_SAMPLE_RATE; the detector and the recognizer then
 * share those samples (without one, each converts the input rate itself).
 */
export interface Resampler {
  open(inputRate: number, outputRate: number): ResamplerStream;
}

export interface RealtimeAudioPorts {
  resampler?: Resampler;
  noiseSuppressor?: NoiseSuppressor;
  voiceActivityDetector?: VoiceActivityDetector;
  speechRecognizer?: SpeechRecognizer;
  replySpeaker?: ReplySpeaker;
  opusCodec?: OpusCodec;
  /** semantic_vad's learned end-of-turn judge, when the operator configured one. */
  endOfTurnModel?: EndOfTurnModel;
}
