import 'reflect-metadata';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import {
  ManageApiKeys,
  REALTIME_TOKENS,
  SynthesizedReplySpeaker,
  SHARED_TOKENS,
  VOICE_TOKENS,
  SPEECH_TOKENS,
  SynthesizeSpeech,
  VoiceCatalog,
  type ApiKeyRepository,
  type AudioCodec,
  type Clock,
  type Hasher,
  type IdGenerator,
  type LanguageDetector,
  type Logger,
  type SpeechSynthesizer,
  type VoiceCloner,
} from '@svc/core';
import {
  FileSystemBlobStore,
  openDatabase,
  TokenBucketRateLimiter,
  TypeOrmApiKeyRepository,
  TypeOrmClientSecretRepository,
} from '@svc/adapters-storage';
import { ServiceMetrics } from '@svc/adapters-http';
import { join } from 'node:path';
import type { ServerConfig } from './config.js';
import { SERVER_TOKENS } from './tokens.js';
import { SystemClock } from './runtime/system-clock.js';
import { CryptoIdGenerator, Sha256Hasher } from './runtime/crypto-ids.js';
import { createPinoLogger } from './runtime/pino-logger.js';
import { createAudioCodec, createLanguageDetector, createSpeechEngines } from './composition/speech.js';
import { createVoices, type Voices } from './composition/voices.js';

/** Replacement bindings, e.g. an in-memory repository or a fake clock in tests. */
export type Overrides = Map<symbol, unknown>;

export interface ServiceContainer {
  container: Container;
  get<T>(token: symbol): T;
  /** Stops engines and closes the database. */
  close(): Promise<void>;
}

/**
 * The composition root: every port bound to the adapter the configuration chooses. Use cases are
 * bound as factories resolving their ports from the container, so an override of any port reaches
 * every use case that needs it.
 */
export async function buildContainer(config: ServerConfig, overrides: Overrides = new Map()): Promise<ServiceContainer> {
  const container = new Container({ defaultScope: 'Singleton' });
  const closers: Array<() => Promise<void>> = [];
  const provide = async <T>(token: symbol, make: () => T | Promise<T>): Promise<void> => {
    container.bind<T>(token).toConstantValue(overrides.has(token) ? (overrides.get(token) as T) : await make());
  };

  await provide<ServerConfig>(SERVER_TOKENS.Config, () => config);
  await provide<Logger>(SHARED_TOKENS.Logger, () => createPinoLogger(config.logLevel));
  await provide<Clock>(SHARED_TOKENS.Clock, () => new SystemClock());
  await provide<IdGenerator>(SHARED_TOKENS.IdGenerator, () => new CryptoIdGenerator());
  await provide<Hasher>(SHARED_TOKENS.Hasher, () => new Sha256Hasher());
  await provide(SHARED_TOKENS.BlobStore, () => new FileSystemBlobStore(join(config.dataDir, 'blobs')));
  await provide(SERVER_TOKENS.Metrics, () => new ServiceMetrics());

  await provide<DataSource>(SERVER_TOKENS.DataSource, async () => {
    const ds = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
    closers.push(() => ds.destroy());
    return ds;
  });
  await provide<ApiKeyRepository>(SHARED_TOKENS.ApiKeyRepository, () => new TypeOrmApiKeyRepository(container.get(SERVER_TOKENS.DataSource)));
  await provide(REALTIME_TOKENS.ClientSecretRepository, () => new TypeOrmClientSecretRepository(container.get(SERVER_TOKENS.DataSource)));
  await provide(SHARED_TOKENS.RateLimiter, () =>
    new TokenBucketRateLimiter(container.get(SHARED_TOKENS.Clock), config.rateLimit.perMinute, config.rateLimit.burst),
  );

  await provide<SpeechSynthesizer[]>(SPEECH_TOKENS.SpeechSynthesizers, async () => {
    const engines = await createSpeechEngines(config);
    closers.push(async () => void (await Promise.all(engines.map((e) => e.close?.()))));
    return engines;
  });
  await provide<AudioCodec>(SPEECH_TOKENS.AudioCodec, createAudioCodec);
  await provide<LanguageDetector>(SPEECH_TOKENS.LanguageDetector, createLanguageDetector);

  container
    .bind(SERVER_TOKENS.ManageApiKeys)
    .toDynamicValue(
      (ctx) =>
        new ManageApiKeys(
          ctx.get(SHARED_TOKENS.ApiKeyRepository),
          ctx.get(SHARED_TOKENS.IdGenerator),
          ctx.get(SHARED_TOKENS.Hasher),
          ctx.get(SHARED_TOKENS.Clock),
          config.apiKeys,
        ),
    );
  container.bind(SPEECH_TOKENS.VoiceCatalog).toDynamicValue((ctx) => new VoiceCatalog(ctx.get(SPEECH_TOKENS.SpeechSynthesizers)));
  // Speech at a given output rate: the REST endpoint uses 24 kHz, realtime sessions their format's rate.
  const speechAt = (ctx: { get<T>(token: symbol): T }, sampleRate?: number) =>
    new SynthesizeSpeech(
      ctx.get(SPEECH_TOKENS.VoiceCatalog),
      ctx.get(SPEECH_TOKENS.AudioCodec),
      ctx.get(SPEECH_TOKENS.LanguageDetector),
      ctx.get<VoiceCloner>(VOICE_TOKENS.VoiceCloner),
      ctx.get<ServiceMetrics>(SERVER_TOKENS.Metrics).speechObserver,
      { sampleRate },
    );
  container.bind(SPEECH_TOKENS.SynthesizeSpeech).toDynamicValue((ctx) => speechAt(ctx));
  container
    .bind(REALTIME_TOKENS.ReplySpeaker)
    .toDynamicValue((ctx) => new SynthesizedReplySpeaker((rate) => speechAt(ctx, rate)));

  await provide<Voices>(SERVER_TOKENS.Voices, () =>
    createVoices({
      dataSource: container.get(SERVER_TOKENS.DataSource),
      blobs: container.get(SHARED_TOKENS.BlobStore),
      codec: container.get(SPEECH_TOKENS.AudioCodec),
      catalog: container.get(SPEECH_TOKENS.VoiceCatalog),
      logger: container.get(SHARED_TOKENS.Logger),
      clock: container.get(SHARED_TOKENS.Clock),
      ids: container.get(SHARED_TOKENS.IdGenerator),
      hasher: container.get(SHARED_TOKENS.Hasher),
      env: config.env,
    }),
  );
  await provide<VoiceCloner>(VOICE_TOKENS.VoiceCloner, () => container.get<Voices>(SERVER_TOKENS.Voices).cloner);

  return {
    container,
    get: <T>(token: symbol) => container.get<T>(token),
    close: async () => {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    },
  };
}
