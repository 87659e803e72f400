import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { z } from 'zod';
import { parseEnvSettings } from '../env-settings.js';
import {
  DEFAULT_AUDIO_LEAD_MS,
  ExtractiveSummarizer,
  LanguageModelSummarizer,
  MintClientSecret,
  RealtimeSessionEngine,
  RedeemClientSecret,
  type ClientSecretRepository,
  type Clock,
  type ConversationSummarizer,
  type Hasher,
  type IdGenerator,
  type LanguageModel,
  type Logger,
  type Principal,
  type QuotaGuard,
  type RealtimeAudioPorts,
  type RealtimeEngineDeps,
  type RealtimeVoiceDirectory,
} from '@svc/core';
import { attachRealtimeGateway, type RealtimeGateway } from '@svc/adapters-ws';
import { EmbeddedDemoLanguageModel, OpenAiCompatibleLanguageModel } from '@svc/adapters-inference';
import { InMemoryQuotaGuard, parseQuotaBudgets } from '@svc/adapters-storage';

const int = (def: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(def);

/** The SVC_* settings of realtime sessions and the language model (documented in docs/realtime.md). */
const settingsSchema = z.object({
  SVC_LLM_BASE_URL: z.string().default(''),
  SVC_LLM_MODEL: z.string().default(''),
  SVC_LLM_API_KEY: z.string().default(''),
  SVC_LLM_CONTEXT_WINDOW_TOKENS: z.coerce.number().int().min(256).max(10_000_000).optional(),
  SVC_LLM_CONNECT_TIMEOUT_MS: int(30_000, 100, 600_000),
  SVC_LLM_DEMO_TOKEN_DELAY_MS: int(0, 0, 10_000),
  SVC_REALTIME_MAX_SESSIONS: int(100, 1, 1_000_000),
  SVC_REALTIME_MAX_SESSIONS_PER_KEY: int(10, 1, 1_000_000),
  SVC_REALTIME_MAX_DURATION_SEC: int(1800, 1, 86_400),
  SVC_REALTIME_QUOTA: z.string().default(''),
  SVC_REALTIME_MAX_FRAME_BYTES: int(2 * 1024 * 1024, 1_100_000, 64 * 1024 * 1024),
  SVC_REALTIME_MAX_BUFFERED_BYTES: int(8 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
  SVC_REALTIME_PING_INTERVAL_MS: int(30_000, 0, 3_600_000),
  /** How far spoken replies may run ahead of the listener's playback. */
  SVC_REALTIME_AUDIO_LEAD_MS: int(DEFAULT_AUDIO_LEAD_MS, 40, 60_000),
});

export type RealtimeSettings = z.output<typeof settingsSchema>;
export const REALTIME_SETTING_KEYS = Object.keys(settingsSchema.shape);

export function readRealtimeSettings(env: Record<string, string | undefined>): RealtimeSettings {
  return parseEnvSettings(settingsSchema, env);
}

/**
 * The language model of realtime sessions: an OpenAI-compatible chat-completions server when
 * SVC_LLM_BASE_URL is set, otherwise the embedded demo model (offline, deterministic).
 */
export function createLanguageModel(settings: RealtimeSettings, clock?: Clock): LanguageModel {
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

export interface RealtimeCompositionDeps {
  server: HttpServer | HttpsServer;
  /** `ManageApiKeys`: authenticates API keys; client secrets die with the key that minted them. */
  apiKeys: { authenticate(secret: string): Promise<Principal>; isActive(apiKeyId: string): Promise<boolean> };
  ids: IdGenerator;
  hasher: Hasher;
  clock: Clock;
  logger: Logger;
  /** The raw environment (ServerConfig.env): SVC_REALTIME_* and SVC_LLM_* are read from it. */
  env: Record<string, string | undefined>;
  clientSecrets: ClientSecretRepository;
  /** Preset voice names (always valid as `audio.output.voice`). */
  presetVoices: readonly string[];
  /** Whether a non-preset voice (a caller's `voice_...`) exists for this caller. */
  voiceExists(voice: string, principal: Principal): Promise<boolean>;
  /** Replace the budget (default: InMemoryQuotaGuard from SVC_REALTIME_QUOTA, unlimited when unset). */
  quota?: QuotaGuard;
  /** Replace the language model (default: from SVC_LLM_*). */
  languageModel?: LanguageModel;
  /** The audio pipeline (VAD, recognizer, reply speaker, opus); absent parts are optional. */
  audio?: RealtimeAudioPorts;
}

export interface Realtime {
  gateway: RealtimeGateway;
  /** For `POST /v1/realtime/client_secrets`: `mintClientSecret.execute(principal, body)`. */
  mintClientSecret: MintClientSecret;
  redeemClientSecret: RedeemClientSecret;
  languageModel: LanguageModel;
  quota: QuotaGuard;
  settings: RealtimeSettings;
  close(): Promise<void>;
}

/** Expired client secrets are purged this often. */
const SECRET_PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** Builds the realtime capability and attaches its WebSocket gateway to the HTTP(S) server. */
export function composeRealtime(deps: RealtimeCompositionDeps): Realtime {
  const settings = readRealtimeSettings(deps.env);
  const logger = deps.logger.child({ module: 'realtime' });
  const languageModel = deps.languageModel ?? createLanguageModel(settings, deps.clock);
  const quota = deps.quota ?? new InMemoryQuotaGuard(parseQuotaBudgets(settings.SVC_REALTIME_QUOTA));
  const presets = new Set(deps.presetVoices);
  const voices: RealtimeVoiceDirectory = {
    exists: async (voice, principal) => presets.has(voice) || deps.voiceExists(voice, principal),
  };
  // The demo model would only echo a summary prompt back; it gets the extractive summary.
  const summarizer: ConversationSummarizer =
    languageModel instanceof EmbeddedDemoLanguageModel ? new ExtractiveSummarizer() : new LanguageModelSummarizer(languageModel);
  const engineDeps: RealtimeEngineDeps = {
    clock: deps.clock,
    ids: deps.ids,
    logger,
    languageModel,
    voices,
    quota,
    summarizer,
    audio: deps.audio,
  };
  const mintClientSecret = new MintClientSecret(deps.clientSecrets, deps.ids, deps.hasher, deps.clock);
  const redeemClientSecret = new RedeemClientSecret(deps.clientSecrets, deps.hasher, deps.clock, (id) => deps.apiKeys.isActive(id));

  const gateway = attachRealtimeGateway(
    deps.server,
    {
      authenticateApiKey: (secret) => deps.apiKeys.authenticate(secret),
      redeemClientSecret: (secret) => redeemClientSecret.execute(secret),
      createSession: (ctx) =>
        new RealtimeSessionEngine(
          engineDeps,
          {
            principal: ctx.principal,
            urlModel: ctx.urlModel,
            sessionId: ctx.sessionId,
            maxDurationSec: settings.SVC_REALTIME_MAX_DURATION_SEC,
            audioLeadMs: settings.SVC_REALTIME_AUDIO_LEAD_MS,
          },
          ctx.output,
        ),
      logger,
    },
    {
      maxSessions: settings.SVC_REALTIME_MAX_SESSIONS,
      maxSessionsPerKey: settings.SVC_REALTIME_MAX_SESSIONS_PER_KEY,
      maxFrameBytes: settings.SVC_REALTIME_MAX_FRAME_BYTES,
      maxBufferedBytes: settings.SVC_REALTIME_MAX_BUFFERED_BYTES,
      pingIntervalMs: settings.SVC_REALTIME_PING_INTERVAL_MS,
    },
  );

  let cancelPurge: (() => void) | null = null;
  const schedulePurge = () => {
    cancelPurge = deps.clock.setTimer(SECRET_PURGE_INTERVAL_MS, () => {
      deps.clientSecrets
        .deleteExpired(deps.clock.now())
        .catch((err) => logger.warn({ err: String(err) }, 'could not purge expired client secrets'))
        .finally(() => {
          if (cancelPurge) schedulePurge();
        });
    });
  };
  schedulePurge();
  logger.info(
    { languageModel: languageModel.id, maxSessions: settings.SVC_REALTIME_MAX_SESSIONS, maxDurationSec: settings.SVC_REALTIME_MAX_DURATION_SEC },
    'realtime gateway attached at /v1/realtime',
  );

  return {
    gateway,
    mintClientSecret,
    redeemClientSecret,
    languageModel,
    quota,
    settings,
    async close() {
      const cancel = cancelPurge;
      cancelPurge = null;
      cancel?.();
      await gateway.close();
    },
  };
}
