import type { SessionAvatarConfig } from './avatar-input.js';
/**
 * The effective realtime session configuration, kept in the exact GA wire shape so that what the
 * engine uses and what `session.created` / `session.updated` report can never drift apart.
 */
export const REALTIME_MODEL = 'svc-realtime';
export const TRANSCRIPTION_MODEL = 'svc-stt-3.1';

export const PCM_RATES = [8000, 16000, 24000, 48000] as const;
export type PcmRate = (typeof PCM_RATES)[number];
export const OPUS_FRAME_SIZES_MS = [2.5, 5, 10, 20, 40, 60] as const;

export type AudioFormat = { type: 'audio/pcm'; rate: PcmRate } | { type: 'audio/pcmu' } | { type: 'audio/opus'; frame_size_ms: number };

/** The only values accepted for noise_reduction.type (the spec shows near_field; far_field is the GA pair). */
export const NOISE_REDUCTION_TYPES = ['near_field', 'far_field'] as const;
export type NoiseReductionType = (typeof NOISE_REDUCTION_TYPES)[number];

export const EAGERNESS_VALUES = ['low', 'medium', 'high', 'auto'] as const;

export interface TurnDetection {
  type: 'server_vad' | 'semantic_vad';
  threshold: number;
  prefix_padding_ms: number;
  silence_duration_ms: number;
  /** Extension: seconds of speech before a segment starts. */
  min_speech_duration: number;
  /** Accepted, no effect: a response is always generated at the end of a turn. */
  create_response: boolean;
  /** Accepted, no effect: speech that proves an interruption always interrupts (see the fields below). */
  interrupt_response: boolean;
  /**
   * Extension: seconds of voiced speech over a reply that prove a real interruption (the reply is
   * paused meanwhile). 0: any detected speech cancels the reply at once (the behaviour without the extension).
   */
  min_interruption_duration: number;
  /**
   * Extension: words in the recognizer's partial result that prove an interruption sooner: words
   * that are not backchannels ("mm-hmm", "yeah"; docs/realtime.md), no more than the voiced
   * duration can carry. 0: words never decide.
   */
  min_interruption_words: number;
  /** Extension: a paused reply resumes when the speech did not prove an interruption (false: it is cancelled then). */
  resume_false_interruption: boolean;
  /** Extension: send `response.output_audio.paused` / `response.output_audio.resumed` (off by default). */
  interruption_events: boolean;
  /** semantic_vad only; accepted, no effect. */
  eagerness?: (typeof EAGERNESS_VALUES)[number];
}

export interface FunctionTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

export interface RealtimeSessionConfig {
  type: 'realtime';
  model: string;
  output_modalities: ['audio'] | ['text'];
  instructions: string;
  audio: {
    input: {
      format: AudioFormat;
      noise_reduction: { type: NoiseReductionType } | null;
      /** `model` null: no transcription events (the recognizer still runs for the language model). */
      transcription: { model: string | null; language: string | null } | null;
      turn_detection: TurnDetection | null;
    };
    output: {
      format: AudioFormat;
      voice: string;
      speed: number;
    };
  };
  tools: FunctionTool[];
  tool_choice: ToolChoice;
  temperature: number;
  max_output_tokens: number | 'inf';
  truncation: 'auto' | 'disabled';
  /** Extension: the face on the call's video track (WebRTC calls only), or null. */
  avatar: SessionAvatarConfig | null;
}

export const MAX_OUTPUT_TOKENS_CAP = 4096;
export const DEFAULT_TEMPERATURE = 0.7;
export const TEMPERATURE_RANGE = { min: 0, max: 2 } as const;
export const OUTPUT_SPEED_RANGE = { min: 0.25, max: 1.5 } as const;
/**
 * Longest `instructions` (session and response) in characters: the system prompt goes to the
 * language model with every turn, so the model's context bounds it anyway; 32,768 characters is
 * about 8,000 tokens, the whole default context of an upstream model, and leaves a multi-page
 * prompt room. Without it 1.5 MB were accepted and kept per session.
 */
export const MAX_REALTIME_INSTRUCTIONS_CHARS = 32_768;
export const DEFAULT_INSTRUCTIONS = 'You are a helpful voice assistant. Keep your answers short and conversational.';

/** Choices the spec leaves open; documented in docs/realtime.md. */
export const TURN_DETECTION_DEFAULTS = {
  threshold: 0.55,
  prefix_padding_ms: 300,
  silence_duration_ms: 500,
  min_speech_duration: 0.125,
  min_interruption_duration: 0.8,
  min_interruption_words: 2,
  resume_false_interruption: true,
  interruption_events: false,
} as const;
export const TURN_DETECTION_BOUNDS = {
  prefix_padding_ms: { min: 0, max: 5000 },
  silence_duration_ms: { min: 0, max: 10000 },
  min_speech_duration: { min: 0, max: 10 },
  min_interruption_duration: { min: 0, max: 10 },
  min_interruption_words: { min: 0, max: 50 },
} as const;

export function defaultTurnDetection(type: TurnDetection['type'] = 'server_vad'): TurnDetection {
  const td: TurnDetection = {
    type,
    ...TURN_DETECTION_DEFAULTS,
    create_response: true,
    interrupt_response: true,
  };
  if (type === 'semantic_vad') td.eagerness = 'auto';
  return td;
}

export function defaultSessionConfig(model: string): RealtimeSessionConfig {
  return {
    type: 'realtime',
    model,
    output_modalities: ['audio'],
    instructions: DEFAULT_INSTRUCTIONS,
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        noise_reduction: null,
        transcription: null,
        turn_detection: defaultTurnDetection(),
      },
      output: {
        format: { type: 'audio/pcm', rate: 24000 },
        voice: 'default',
        speed: 1,
      },
    },
    tools: [],
    tool_choice: 'auto',
    temperature: DEFAULT_TEMPERATURE,
    max_output_tokens: 'inf',
    truncation: 'auto',
    avatar: null,
  };
}

/** Deep copy: configs are small and copied on every update so a failed update leaves the old one intact. */
export function cloneSessionConfig(config: RealtimeSessionConfig): RealtimeSessionConfig {
  return JSON.parse(JSON.stringify(config)) as RealtimeSessionConfig;
}

/** The output token limit a response should use (null = unbounded). */
export function outputTokenLimit(value: number | 'inf'): number | null {
  return value === 'inf' ? null : value;
}

/** Sample rate of a format as PCM (mu-law is 8 kHz; opus is decoded/encoded at 48 kHz). */
export function formatSampleRate(format: AudioFormat): number {
  if (format.type === 'audio/pcm') return format.rate;
  if (format.type === 'audio/pcmu') return 8000;
  return 48000;
}
