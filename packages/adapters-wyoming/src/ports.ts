import type { Logger, Principal, RateLimiter, SynthesizeSpeech, TranscribeAudio, VoiceCatalog } from '@svc/core';
import type { FramingLimits } from './framing/wyoming-event.js';

/** A registered (cloned) voice as the `info` event lists it. */
export interface RegisteredVoiceEntry {
  /** The `voice_...` id: the name a client synthesizes with. */
  id: string;
  description: string;
  /** The language of the preset it is spoken with (lower-case BCP-47), when known. */
  language: string | null;
}

/** Who the port acts as (Wyoming itself has no authentication). */
export interface WyomingIdentity {
  /**
   * The key an operator named for the port (SVC_WYOMING_API_KEY_ID), checked on every request:
   * a key revoked since start throws InvalidApiKeyError. Null when none is named: presets and the
   * recognizer only, no registered voices.
   */
  principal(): Promise<Principal | null>;
}

/** The registered voices of a key: listed in `info`, and checked when a stream names one. */
export interface RegisteredVoices {
  /** Newest first, at most `limit`. */
  list(principal: Principal, limit: number): Promise<RegisteredVoiceEntry[]>;
  exists(principal: Principal, voiceId: string): Promise<boolean>;
}

/** One finished (or failed) request, for metrics and the log. */
export interface WyomingRequestRecord {
  kind: 'describe' | 'synthesize' | 'synthesize-stream' | 'transcribe';
  outcome: 'ok' | 'error' | 'aborted';
  seconds: number;
  /** Seconds of audio produced or transcribed. */
  audioSeconds: number;
}

export interface WyomingObserver {
  request(record: WyomingRequestRecord): void;
}

/** The core use cases and ports the Wyoming adapter drives: the same ones as the HTTP routes. */
export interface WyomingServices {
  /** Speech at the port's output rate (presets, neural voices, registered voices, inline tags). */
  speech: SynthesizeSpeech;
  /** That rate: the `rate` of every audio event sent. */
  sampleRate: number;
  catalog: VoiceCatalog;
  /** The server's recognizer, as POST /v1/audio/transcriptions uses it. */
  transcription: TranscribeAudio;
  voices: RegisteredVoices;
  identity: WyomingIdentity;
  /** The per-key buckets of the REST API (`speech`, `transcriptions`): Wyoming requests count in them. */
  rateLimiter: RateLimiter;
  logger: Logger;
  observer?: WyomingObserver;
  /** What `info` says the programs are. */
  program: { name: string; version: string };
}

export interface WyomingLimits extends FramingLimits {
  /** Longest recording one `transcribe` accepts (seconds of audio). */
  maxAudioSeconds: number;
  /** Connections open at once; one more is told so and closed. */
  maxConnections: number;
  /** A connection with no traffic either way for this long is closed. */
  idleTimeoutMs: number;
}
