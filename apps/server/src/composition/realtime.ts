import { z } from 'zod';
import {
  DEFAULT_AUDIO_LEAD_MS,
  ExtractiveSummarizer,
  LanguageModelSummarizer,
  MintClientSecret,
  REALTIME_TOKENS,
  RealtimeSessionEngine,
  RedeemClientSecret,
  SHARED_TOKENS,
  SPEECH_TOKENS,
  SynthesizedReplySpeaker,
  type ClientSecretRepository,
  type Clock,
  type LanguageModel,
  DEFAULT_MAX_EVENT_LOOP_LAG_MS,
  DEFAULT_MAX_RECOGNIZER_BACKLOG_MS,
  DEFAULT_TRANSCRIPT_DEADLINE_MS,
  repeatEvery,
  VoiceNotFoundError,
  type RealtimeEngineDeps,
  type RealtimeVoiceDirectory,
  type ReplySpeaker,
  type Resampler,
  type SpeechRecognizer,
  type VoiceActivityDetector,
  type VoiceCatalog,
  type Principal,
  type RealtimeOutput,
  type SessionMedia,
  type SessionVideoOutput,
} from '@svc/core';
import {
  attachRealtimeGateway,
  DEFAULT_INBOUND_BYTES_PER_SECOND,
  DEFAULT_INBOUND_EVENTS_PER_SECOND,
  type RealtimeGateway,
} from '@svc/adapters-ws';
import { EmbeddedDemoLanguageModel, OpenAiCompatibleLanguageModel } from '@svc/adapters-language-model';
import {
  dependencyUnavailable,
  InMemoryQuotaGuard,
  parseQuotaBudgets,
  RedisQuotaGuard,
  TypeOrmClientSecretRepository,
} from '@svc/adapters-storage';
import { clientSecretRoutes, rateLimitMiddleware } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { rethrowUnavailable } from '../runtime/rethrow-unavailable.js';
import { servesApi } from '../runtime/process-role.js';
import { warmUp, warmUpOnThisProcess } from '../runtime/warm-up.js';
import { WarmingReplySpeaker } from '../runtime/reply-speech-warm-up.js';
import type { ServerConfig, Settings } from '../config.js';
import { defineModule, type Attachment, type ModuleContext, type ModuleRoutes, type Provide } from './module.js';
import { openAiModelAliases } from './openai-model-aliases.js';
import { bindRealtimeAdmission, currentCapacity, startRealtimeAdmission } from './realtime-admission.js';
import type { LiveAvatarSupport } from './live-avatar.js';

/**
 * CPU one session is taken to cost before the server has measured its sessions (cores). The cost
 * learned from the running sessions takes over once measured, lower or higher; until then this
 * decides how many callers who arrive together at start-up get in: with the default budget on 2
 * cores, as many as the fixed estimate let in before (docs/realtime.md, "Capacity"; a lower estimate
 * once let in more than the cores serve).
 */
const DEFAULT_SESSION_CPU = 0.15;
/**
 * CPU one 640x640 live avatar's video costs (cores): a 640x480 avatar call's server CPU (pose, warp,
 * libx264, and its idle session), scaled to 640x640 and less its session (docs/realtime.md,
 * "Capacity"; the call's figures in docs/benchmarks.md, "Live avatar on a WebRTC call").
 */
const DEFAULT_AVATAR_CPU = 0.45;

/** Expired client secrets are purged this often. */
const SECRET_PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** One realtime session for a transport (the WebSocket gateway, a WebRTC call); `media` for transports that carry audio as media. */
export type RealtimeSessionFactory = (context: {
  principal: Principal;
  urlModel: string | null;
  sessionId?: string;
  output: RealtimeOutput;
  media?: SessionMedia;
  /** A call's video (a WebRTC offer that receives video): where session.avatar is shown. */
  video?: SessionVideoOutput;
}) => RealtimeSessionEngine;

/** What the realtime module attaches to the HTTP server. */
export interface RealtimeAttachment extends Attachment {
  gateway: RealtimeGateway;
}

/**
 * Realtime voice sessions (documented in docs/realtime.md): the WebSocket gateway at /v1/realtime,
 * client secrets, the language model (an OpenAI-compatible server when SVC_LLM_BASE_URL is set,
 * otherwise the embedded demo model), the quota and the spoken replies. The audio engines (VAD,
 * recognizer, opus) come from realtime-audio.ts.
 */
export const realtimeModule = defineModule({
  name: 'realtime',
  docs: 'docs/realtime.md',
  settings: {
    SVC_LLM_BASE_URL: setting.url(['http', 'https'], 'an http(s) URL such as http://127.0.0.1:8080/v1'),
    SVC_LLM_MODEL: setting.string(),
    SVC_LLM_API_KEY: setting.string(),
    SVC_LLM_CONTEXT_WINDOW_TOKENS: setting.optionalInt(256, 10_000_000),
    SVC_LLM_CONNECT_TIMEOUT_MS: setting.int(30_000, 100, 600_000),
    SVC_LLM_DEMO_TOKEN_DELAY_MS: setting.int(0, 0, 10_000),
    SVC_REALTIME_MAX_SESSIONS: setting.int(100, 1, 1_000_000),
    SVC_REALTIME_MAX_SESSIONS_PER_KEY: setting.int(10, 1, 1_000_000),
    SVC_REALTIME_MAX_DURATION_SEC: setting.int(1800, 1, 86_400),
    SVC_REALTIME_MAX_CONVERSATION_ITEMS: setting.int(1000, 1, 1_000_000),
    SVC_REALTIME_MAX_CONVERSATION_BYTES: setting.int(32 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    SVC_REALTIME_QUOTA: setting.string().transform((spec, ctx) => {
      try {
        return parseQuotaBudgets(spec);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
    SVC_REALTIME_MAX_FRAME_BYTES: setting.int(2 * 1024 * 1024, 1_100_000, 64 * 1024 * 1024),
    SVC_REALTIME_MAX_BUFFERED_BYTES: setting.int(8 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
    SVC_REALTIME_PING_INTERVAL_MS: setting.int(30_000, 0, 3_600_000),
    /** Inbound budget of one realtime connection (docs/realtime.md): over it, error + close 1008. */
    SVC_REALTIME_INBOUND_EVENTS_PER_SEC: setting.int(DEFAULT_INBOUND_EVENTS_PER_SECOND, 1, 1_000_000),
    SVC_REALTIME_INBOUND_BYTES_PER_SEC: setting.int(DEFAULT_INBOUND_BYTES_PER_SECOND, 1024, 1024 * 1024 * 1024),
    /** Seconds a key (or ephemeral key) waits for a new session after one was closed for exceeding its inbound budget; 0: never. */
    SVC_REALTIME_FLOOD_COOLDOWN_SEC: setting.int(10, 0, 3600),
    /** How far spoken replies may run ahead of the listener's playback. */
    SVC_REALTIME_AUDIO_LEAD_MS: setting.int(DEFAULT_AUDIO_LEAD_MS, 40, 60_000),
    /** Admission by capacity: `auto` (CPU budget / measured session cost, and the load guards), `off`, or a fixed number of sessions. */
    SVC_REALTIME_CAPACITY: z
      .string()
      .regex(/^(auto|off|[1-9]\d{0,6})$/, 'must be auto, off or a number of sessions')
      .default('auto'),
    /** CPU cores realtime sessions may use in this process and its decoders (default 50 % of the CPUs). */
    SVC_REALTIME_CPU_BUDGET: setting.optionalDecimal(0.05, 4096),
    /** CPU cores one speaking session is assumed to cost, and the least a measurement may lower it to. */
    SVC_REALTIME_SESSION_CPU: setting.decimal(DEFAULT_SESSION_CPU, 0.001, 64),
    /** CPU cores one 640x640 live avatar's video costs (a 640x480 one three quarters of it), reserved apart from its call's session. */
    SVC_REALTIME_AVATAR_CPU: setting.decimal(DEFAULT_AVATAR_CPU, 0, 64),
    /** Load guards of the capacity admission: past these no session is admitted whatever the count. */
    SVC_REALTIME_MAX_RECOGNIZER_BACKLOG_MS: setting.int(DEFAULT_MAX_RECOGNIZER_BACKLOG_MS, 50, 600_000),
    SVC_REALTIME_MAX_EVENT_LOOP_LAG_MS: setting.int(DEFAULT_MAX_EVENT_LOOP_LAG_MS, 10, 600_000),
    /** How long after speech_stopped a streamed turn's transcript may take before the turn is dropped with an error. */
    SVC_REALTIME_TRANSCRIPT_DEADLINE_MS: setting.int(DEFAULT_TRANSCRIPT_DEADLINE_MS, 200, 600_000),
    /** An extension, off by default: semantic_vad honours `eagerness` (the interface accepts it with no effect). */
    SVC_REALTIME_SEMANTIC_EAGERNESS: setting.bool(false),
    /** Begin a turn's reply at a pause that may end it, unseen until the turn has ended (docs/realtime.md, "Speculation"). */
    SVC_REALTIME_SPECULATION: setting.bool(true),
  },
  bind(provide, config) {
    const s = config.settings;
    bindLanguageModel(provide, s);
    bindClientSecrets(provide);
    bindRealtimeAdmission(provide, s);
    bindSessionServices(provide, config);
    bindSessionFactory(provide, config);
    bindGatewayDeps(provide);
  },
  routes({ config, get }): ModuleRoutes {
    return {
      authenticated: [
        clientSecretRoutes({
          mint: get(REALTIME_TOKENS.MintClientSecret),
          jsonBodyLimit: config.settings.SVC_MAX_JSON_BODY_BYTES,
          rateLimit: rateLimitMiddleware(get(SHARED_TOKENS.RateLimiter), 'client_secrets'),
        }),
      ],
    };
  },
  /**
   * Where the API is served (sessions run, secrets are minted and redeemed there): the load monitor
   * samples, the keys of open sessions are re-checked for revocation, expired client secrets are purged.
   */
  start(ctx) {
    const { config, get } = ctx;
    if (!servesApi(config)) return;
    const stopAdmission = startRealtimeAdmission(ctx);
    const clock = get(SHARED_TOKENS.Clock);
    const secrets = get(REALTIME_TOKENS.ClientSecretRepository);
    const logger = get(SHARED_TOKENS.Logger);
    const purge = repeatEvery(
      clock,
      {
        name: 'client secret purge',
        firstMs: SECRET_PURGE_INTERVAL_MS,
        everyMs: SECRET_PURGE_INTERVAL_MS,
        onError: (err) => logger.warn({ err: String(err) }, 'could not purge expired client secrets'),
      },
      () => secrets.deleteExpired(clock.now()),
    );
    return async () => {
      await purge.stop();
      await stopAdmission();
    };
  },
  attach(server, ctx): RealtimeAttachment {
    const { config, get } = ctx;
    const s = config.settings;
    const deps = get(SERVER_TOKENS.RealtimeGatewayDeps);
    const metrics = get(SERVER_TOKENS.Metrics);
    const gateway = attachRealtimeGateway(server, deps, {
      maxSessions: s.SVC_REALTIME_MAX_SESSIONS,
      maxSessionsPerKey: s.SVC_REALTIME_MAX_SESSIONS_PER_KEY,
      maxFrameBytes: s.SVC_REALTIME_MAX_FRAME_BYTES,
      maxBufferedBytes: s.SVC_REALTIME_MAX_BUFFERED_BYTES,
      pingIntervalMs: s.SVC_REALTIME_PING_INTERVAL_MS,
      inboundEventsPerSecond: s.SVC_REALTIME_INBOUND_EVENTS_PER_SEC,
      inboundBytesPerSecond: s.SVC_REALTIME_INBOUND_BYTES_PER_SEC,
      admission: get(REALTIME_TOKENS.Admission),
      onRefused: (refusal) => metrics.realtimeRefused(refusal),
    });
    metrics.trackRealtimeSessions(() => gateway.activeSessions());
    trackCapacity(ctx);
    get(SHARED_TOKENS.Logger).info(
      {
        languageModel: get(REALTIME_TOKENS.LanguageModel).id,
        maxSessions: s.SVC_REALTIME_MAX_SESSIONS,
        maxDurationSec: s.SVC_REALTIME_MAX_DURATION_SEC,
      },
      'realtime gateway attached at /v1/realtime',
    );
    return {
      gateway,
      close: () => gateway.close(),
    };
  },
});

/** The language model of sessions and the summarizer that keeps conversations inside its context. */
function bindLanguageModel(provide: Provide, s: Settings): void {
  provide(REALTIME_TOKENS.LanguageModel, async (get) => createLanguageModel(s, await get(SHARED_TOKENS.Clock)));
  provide(REALTIME_TOKENS.ConversationSummarizer, async (get) => {
    const model = await get(REALTIME_TOKENS.LanguageModel);
    return model.canSummarize === false ? new ExtractiveSummarizer() : new LanguageModelSummarizer(model);
  });
}

/** Ephemeral keys: their table, minting (POST /v1/realtime/client_secrets) and redemption at connect. */
function bindClientSecrets(provide: Provide): void {
  provide(REALTIME_TOKENS.ClientSecretRepository, async (get) => new TypeOrmClientSecretRepository(await get(SERVER_TOKENS.DataSource)));
  provide(
    REALTIME_TOKENS.MintClientSecret,
    async (get) =>
      new MintClientSecret(
        await get(REALTIME_TOKENS.ClientSecretRepository),
        await get(SHARED_TOKENS.IdGenerator),
        await get(SHARED_TOKENS.Hasher),
        await get(SHARED_TOKENS.Clock),
      ),
  );
  provide(REALTIME_TOKENS.RedeemClientSecret, async (get) => {
    const keys = await get(SERVER_TOKENS.ManageApiKeys);
    // Client secrets die with the key that minted them.
    return new RedeemClientSecret(
      await get(REALTIME_TOKENS.ClientSecretRepository),
      await get(SHARED_TOKENS.Hasher),
      await get(SHARED_TOKENS.Clock),
      (id) => keys.isActive(id),
    );
  });
}

/** What a session's responses use besides the model: the quota, the reply speaker, the voices it may speak with. */
function bindSessionServices(provide: Provide, config: ServerConfig): void {
  const s = config.settings;
  // With a shared Redis the quota and the admission rules hold across processes; otherwise in this process.
  provide(REALTIME_TOKENS.QuotaGuard, async (get) => {
    const { client } = await get(SERVER_TOKENS.SharedRedis);
    return client
      ? new RedisQuotaGuard(client, s.SVC_REALTIME_QUOTA, `${s.SVC_REDIS_KEY_PREFIX}quota:`)
      : new InMemoryQuotaGuard(s.SVC_REALTIME_QUOTA);
  });
  provide(REALTIME_TOKENS.ReplySpeaker, async (get) => {
    const logger = await get(SHARED_TOKENS.Logger);
    const speaker = new WarmingReplySpeaker(
      new SynthesizedReplySpeaker(await get(SERVER_TOKENS.SpeechAtRate)),
      s.SVC_FLITE_WORKERS,
      logger,
    );
    // WARM-UP (realtime replies): a reply on each synthesis thread, at start with the audio engines
    // (SVC_REALTIME_WARM_UP), else when the first session's user starts speaking.
    await warmUp(warmUpOnThisProcess(config, s.SVC_REALTIME_WARM_UP), 'reply speech', () => speaker.warm(), logger);
    return speaker;
  });
  // An output voice is a preset or one of the caller's registered voices (scoped like the REST API).
  provide(REALTIME_TOKENS.VoiceDirectory, async (get) => {
    const catalog = await get(SPEECH_TOKENS.VoiceCatalog);
    const presets = new Set(catalog.names());
    const voices = await get(SERVER_TOKENS.VoiceUseCases);
    return {
      exists: async (voice, principal) =>
        presets.has(voice) ||
        catalog.get(voice) !== undefined || // a voice an engine builds by name (a Kokoro blend)
        voices.get.execute(principal, voice).then(
          () => true,
          // Unknown voice: false. A database that does not answer is not "unknown": it is reported as such.
          (err: unknown) => {
            if (err instanceof VoiceNotFoundError) return false;
            throw dependencyUnavailable(err) ?? err;
          },
        ),
    };
  });
}

/** One realtime session engine per connection or call: the same services and settings whichever transport. */
function bindSessionFactory(provide: Provide, config: ServerConfig): void {
  const s = config.settings;
  provide(SERVER_TOKENS.RealtimeSessionFactory, async (get) => {
    const logger = (await get(SHARED_TOKENS.Logger)).child({ module: 'realtime' });
    const metrics = await get(SERVER_TOKENS.Metrics);
    const engineDeps: RealtimeEngineDeps = {
      clock: await get(SHARED_TOKENS.Clock),
      ids: await get(SHARED_TOKENS.IdGenerator),
      logger,
      languageModel: await get(REALTIME_TOKENS.LanguageModel),
      voices: await get(REALTIME_TOKENS.VoiceDirectory),
      quota: await get(REALTIME_TOKENS.QuotaGuard),
      summarizer: await get(REALTIME_TOKENS.ConversationSummarizer),
      openAiModelAliases: openAiModelAliases(config),
      semanticEagerness: s.SVC_REALTIME_SEMANTIC_EAGERNESS,
      audio: {
        resampler: await get(REALTIME_TOKENS.Resampler),
        noiseSuppressor: await get(REALTIME_TOKENS.NoiseSuppressor),
        replySpeaker: await get(REALTIME_TOKENS.ReplySpeaker),
        voiceActivityDetector: (await get(REALTIME_TOKENS.VoiceActivityDetector)) ?? undefined,
        speechRecognizer: (await get(REALTIME_TOKENS.SpeechRecognizer)) ?? undefined,
        opusCodec: await get(REALTIME_TOKENS.OpusCodec),
        endOfTurnModel: (await get(REALTIME_TOKENS.EndOfTurnModel)) ?? undefined,
      },
      usage: await get(SERVER_TOKENS.ServerLoadMonitor),
      speculativeReplies: s.SVC_REALTIME_SPECULATION,
      load: await get(SERVER_TOKENS.ServerLoadMonitor),
      loadLimits: {
        maxRecognizerBacklogMs: s.SVC_REALTIME_MAX_RECOGNIZER_BACKLOG_MS,
        maxEventLoopLagMs: s.SVC_REALTIME_MAX_EVENT_LOOP_LAG_MS,
      },
      speculated: (outcome) => metrics.realtimeSpeculation(outcome),
      turnModelJudged: (verdict) => metrics.turnModelVerdict(verdict),
    };
    const liveAvatar = await get(SERVER_TOKENS.LiveAvatar);
    if (liveAvatar) engineDeps.liveAvatar = liveAvatar.services;
    return (ctx) =>
      new RealtimeSessionEngine(
        engineDeps,
        {
          principal: ctx.principal,
          urlModel: ctx.urlModel,
          sessionId: ctx.sessionId,
          maxDurationSec: s.SVC_REALTIME_MAX_DURATION_SEC,
          audioLeadMs: s.SVC_REALTIME_AUDIO_LEAD_MS,
          conversationLimits: { maxItems: s.SVC_REALTIME_MAX_CONVERSATION_ITEMS, maxBytes: s.SVC_REALTIME_MAX_CONVERSATION_BYTES },
          transcriptDeadlineMs: s.SVC_REALTIME_TRANSCRIPT_DEADLINE_MS,
          ...(ctx.media ? { media: ctx.media } : {}),
          ...(ctx.video ? { video: ctx.video } : {}),
        },
        ctx.output,
      );
  });
}

/** The WebSocket gateway's collaborators: credential checks (a key store that does not answer: 1013) and the session factory. */
function bindGatewayDeps(provide: Provide): void {
  provide(SERVER_TOKENS.RealtimeGatewayDeps, async (get) => {
    const keys = await get(SERVER_TOKENS.ManageApiKeys);
    const redeem = await get(REALTIME_TOKENS.RedeemClientSecret);
    const logger = (await get(SHARED_TOKENS.Logger)).child({ module: 'realtime' });
    const createSession = await get(SERVER_TOKENS.RealtimeSessionFactory);
    const phoneCalls = await get(SERVER_TOKENS.PhoneCalls);
    return {
      // A key store that does not answer refuses the connection with 1013 (retry later), not 3000.
      authenticateApiKey: (secret) => keys.authenticate(secret).catch(rethrowUnavailable),
      redeemClientSecret: (secret) => redeem.execute(secret).catch(rethrowUnavailable),
      createSession: (ctx) => createSession(ctx),
      // `?call_id=`: a live phone call's events (docs/sip.md).
      joinCall: (callId, principal, joiner) => phoneCalls.join(callId, principal, joiner),
      logger,
    };
  });
}

/** The capacity gauges of /metrics: capacity, measured session cost, recognizer backlog, audio in and decoded, VAD batching. */
function trackCapacity({ config, get }: ModuleContext): void {
  const monitor = get(SERVER_TOKENS.ServerLoadMonitor);
  const detector = get(REALTIME_TOKENS.VoiceActivityDetector);
  const capacity = currentCapacity(get(REALTIME_TOKENS.SessionRegistry), config.settings.SVC_REALTIME_MAX_SESSIONS);
  get(SERVER_TOKENS.Metrics).trackRealtimeCapacity(() => {
    const load = monitor.read();
    const vad = detector?.batchStats?.();
    return {
      capacity: capacity(),
      sessionCores: load.sessionCores,
      recognizerBacklogMs: load.recognizerBacklogMs,
      inputAudioSeconds: monitor.inputAudioSeconds,
      decodedAudioSeconds: monitor.decodedAudioSeconds,
      vadFrames: vad?.frames ?? 0,
      vadRuns: vad?.runs ?? 0,
    };
  });
}

/**
 * The language model of realtime sessions: an OpenAI-compatible chat-completions server when
 * SVC_LLM_BASE_URL is set, otherwise the embedded demo model (offline, deterministic).
 */
export function createLanguageModel(settings: Settings, clock?: Clock): LanguageModel {
  if (settings.SVC_LLM_BASE_URL) {
    return new OpenAiCompatibleLanguageModel({
      baseUrl: settings.SVC_LLM_BASE_URL,
      model: settings.SVC_LLM_MODEL || 'default',
      apiKey: settings.SVC_LLM_API_KEY || undefined,
      contextWindowTokens: settings.SVC_LLM_CONTEXT_WINDOW_TOKENS ?? 8192,
      connectTimeoutMs: settings.SVC_LLM_CONNECT_TIMEOUT_MS,
    });
  }
  return new EmbeddedDemoLanguageModel({
    contextWindowTokens: settings.SVC_LLM_CONTEXT_WINDOW_TOKENS ?? 4096,
    tokenDelayMs: settings.SVC_LLM_DEMO_TOKEN_DELAY_MS,
    // "What time is it?" follows the service clock (a test's manual clock included).
    now: clock ? () => new Date(clock.now()) : undefined,
  });
}
