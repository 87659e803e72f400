import { token } from '../shared/token.js';
import type { QuotaGuard } from '../shared/rate-limiter.js';
import type { RealtimeSessionRegistry } from './admission/session-registry.js';
import type { RealtimeAdmission } from './admission/realtime-admission.js';
import type { ClientSecretRepository } from './client-secrets/client-secret.js';
import type { MintClientSecret } from './client-secrets/mint-client-secret.js';
import type { RedeemClientSecret } from './client-secrets/redeem-client-secret.js';
import type { ConversationSummarizer } from './conversation/summarization.js';
import type {
  NoiseSuppressor,
  OpusCodec,
  ReplySpeaker,
  Resampler,
  SpeechRecognitionStatus,
  SpeechRecognizer,
  VoiceActivityDetector,
} from './ports/audio-pipeline.js';
import type { EndOfTurnModel } from './ports/end-of-turn-model.js';
import type { LanguageModel } from './ports/language-model.js';
import type { RealtimeVoiceDirectory } from './ports/voice-directory.js';

/**
 * Injection tokens of the realtime capability, each typed with what is bound under it. Sessions are
 * wired by apps/server/src/composition/realtime.ts; every port has a token, so a test or an embedder
 * can replace it.
 */
export const REALTIME_TOKENS = {
  ClientSecretRepository: token<ClientSecretRepository>('svc.realtime.ClientSecretRepository'),
  ReplySpeaker: token<ReplySpeaker>('svc.realtime.ReplySpeaker'),
  /** VoiceActivityDetector, or null when turn detection is off. */
  VoiceActivityDetector: token<VoiceActivityDetector | null>('svc.realtime.VoiceActivityDetector'),
  /** SpeechRecognizer, or null when no recognizer runs. */
  SpeechRecognizer: token<SpeechRecognizer | null>('svc.realtime.SpeechRecognizer'),
  OpusCodec: token<OpusCodec>('svc.realtime.OpusCodec'),
  /** Resampler: the input once to the 16 kHz the detector and the recognizer share. */
  Resampler: token<Resampler>('svc.realtime.Resampler'),
  /** semantic_vad's learned end-of-turn model (SVC_TURN_MODEL), or null when none is configured. */
  EndOfTurnModel: token<EndOfTurnModel | null>('svc.realtime.EndOfTurnModel'),
  /** NoiseSuppressor for `noise_reduction` (RNNoise). */
  NoiseSuppressor: token<NoiseSuppressor>('svc.realtime.NoiseSuppressor'),
  /** Whether user audio can be transcribed, and why not (banner, /readyz). */
  SpeechRecognitionStatus: token<SpeechRecognitionStatus>('svc.realtime.SpeechRecognitionStatus'),
  LanguageModel: token<LanguageModel>('svc.realtime.LanguageModel'),
  ConversationSummarizer: token<ConversationSummarizer>('svc.realtime.ConversationSummarizer'),
  QuotaGuard: token<QuotaGuard>('svc.realtime.QuotaGuard'),
  SessionRegistry: token<RealtimeSessionRegistry>('svc.realtime.SessionRegistry'),
  /** The one admission path of every realtime transport (the registry, flood penalties, revocation). */
  Admission: token<RealtimeAdmission>('svc.realtime.Admission'),
  VoiceDirectory: token<RealtimeVoiceDirectory>('svc.realtime.VoiceDirectory'),
  MintClientSecret: token<MintClientSecret>('svc.realtime.MintClientSecret'),
  RedeemClientSecret: token<RedeemClientSecret>('svc.realtime.RedeemClientSecret'),
} as const;
