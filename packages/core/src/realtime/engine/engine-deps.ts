import type { Principal } from '../../auth/api-key.js';
import type { ServerLoadProbe } from '../admission/server-load.js';
import type { SpeculationOutcome } from '../response/speculative-reply.js';
import type { EndOfTurnVerdict } from '../ports/end-of-turn-model.js';
import type { LoadGuards } from './turn-speculation.js';
import type { Clock } from '../../shared/clock.js';
import type { IdGenerator } from '../../shared/ids.js';
import type { Logger } from '../../shared/logger.js';
import type { QuotaGuard } from '../../shared/rate-limiter.js';
import type { ConversationLimits } from '../conversation/conversation.js';
import type { ConversationSummarizer } from '../conversation/summarization.js';
import type { RealtimeAudioPorts } from '../ports/audio-pipeline.js';
import type { LanguageModel } from '../ports/language-model.js';
import type { SessionMedia } from '../ports/media-transport.js';
import type { RealtimeVoiceDirectory } from '../ports/voice-directory.js';
import type { LiveAvatarServices, SessionVideoOutput } from './session-avatar.js';
import type { RealtimeServerEvent, SessionEnding } from '../protocol/server-events.js';

/** Shared services of every session (one set per server). */
export interface RealtimeEngineDeps {
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  languageModel: LanguageModel;
  voices: RealtimeVoiceDirectory;
  quota: QuotaGuard;
  /** Defaults to the deterministic ExtractiveSummarizer. */
  summarizer?: ConversationSummarizer;
  audio?: RealtimeAudioPorts;
  /** The live avatar (`session.avatar` on calls with video); without it such sessions are refused. */
  liveAvatar?: LiveAvatarServices;
  /** Told what sessions use: the server measures what a speaking session costs from it (capacity admission). */
  usage?: RealtimeUsageObserver;
  /** Accept OpenAI's realtime model names as aliases of the realtime model (SVC_OPENAI_MODEL_ALIASES). */
  openAiModelAliases?: boolean;
  /**
   * Honour semantic_vad's `eagerness` (an operator's opt-in extension, SVC_REALTIME_SEMANTIC_EAGERNESS):
   * the interface accepts it with no effect, so by default it has none.
   */
  semanticEagerness?: boolean;
  /**
   * Begin a turn's reply at a pause that may end it, before that is decided (SVC_REALTIME_SPECULATION;
   * off when absent): nothing the client sees changes, the reply is sent sooner when the words held.
   */
  speculativeReplies?: boolean;
  /** The server's load: replies are not begun on a guess while it is behind (by the admission's guards). */
  load?: ServerLoadProbe;
  loadLimits?: LoadGuards;
  /** Told whether each reply begun on a guess was used or discarded (the metrics). */
  speculated?(outcome: SpeculationOutcome): void;
  /** Told what became of each question to the end-of-turn model (the metrics). */
  turnModelJudged?(verdict: EndOfTurnVerdict): void;
}

export interface RealtimeUsageObserver {
  /** A session received `ms` of input audio (after decoding, whatever its format). */
  inputAudio(ms: number): void;
}

/** Facts about one connection. */
export interface RealtimeSessionOptions {
  principal: Principal;
  /** `?model=` of the connection URL. */
  urlModel: string | null;
  /** The id announced by a client secret; a new one is generated otherwise. */
  sessionId?: string;
  /** Wall-clock cap of the session. */
  maxDurationSec: number;
  /** 5 minutes per spec; only tests change it (or move the Clock). */
  idleTimeoutMs?: number;
  /** How far spoken replies may run ahead of the listener's playback (default DEFAULT_AUDIO_LEAD_MS). */
  audioLeadMs?: number;
  /** Upper bound of uncommitted input audio held per session (oldest audio is dropped). */
  maxInputAudioBufferMs?: number;
  /** Items and bytes one conversation may hold (default DEFAULT_CONVERSATION_LIMITS). */
  conversationLimits?: ConversationLimits;
  /** Set by a transport that carries video (a WebRTC call whose offer receives video): where `session.avatar` is shown. */
  video?: SessionVideoOutput;
  /**
   * How long after `speech_stopped` a server-VAD turn's transcript may take (default
   * DEFAULT_TRANSCRIPT_DEADLINE_MS); past it the turn is dropped with an `error` saying why.
   */
  transcriptDeadlineMs?: number;
  /**
   * Set by a transport that carries the audio as media (a WebRTC call): input arrives through
   * `appendInputSamples`, spoken replies are played on its track (see SessionMedia).
   */
  media?: SessionMedia;
}

/** Where server events go: the WebSocket adapter, or a test collecting them. */
export interface RealtimeOutput {
  send(event: RealtimeServerEvent): void;
  /** Ends the connection; called once, after the last event. `reason` is a short human text. */
  close(ending: SessionEnding, reason: string): void;
}

export const IDLE_TIMEOUT_MS = 5 * 60 * 1000;
export const DEFAULT_MAX_INPUT_AUDIO_BUFFER_MS = 120_000;
/**
 * A streamed turn was decoded while it was spoken: only the final pass is left at `speech_stopped`
 * (15-70 ms). Three seconds later the recognizer is far behind (overload) or stuck, and a caller
 * waiting in silence has given up on the reply.
 */
export const DEFAULT_TRANSCRIPT_DEADLINE_MS = 3000;
/** Resource name under which each response is charged to the QuotaGuard (one unit per response). */
export const REALTIME_RESPONSE_RESOURCE = 'realtime.response';
