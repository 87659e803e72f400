import { z } from 'zod';
import { parseEnvSettings } from '../env-settings.js';
import type { DataSource } from 'typeorm';
import {
  BaseVoiceLibrary,
  DEFAULT_BASE_PRESETS,
  DeleteVoice,
  GetVoice,
  ListVoices,
  ReferenceAudioLoader,
  RegisterVoice,
  VoiceCloningService,
  VoiceProfiler,
  type AudioCodec,
  type BlobStore,
  type Clock,
  type Hasher,
  type IdGenerator,
  type Logger,
  type MediaFetcher,
  type VoiceCatalog,
  type VoiceCloner,
  type VoiceRepository,
} from '@svc/core';
import { DspVoiceAnalyzer, RubberbandVoiceConverter, SafeHttpMediaFetcher } from '@svc/adapters-inference';
import { TypeOrmVoiceRepository } from '@svc/adapters-storage';
import { voiceRoutes, type AppState, type RouteModule } from '@svc/adapters-http';
import type { Middleware } from 'koa';

const list = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));
const int = (def: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(def);

/** The SVC_* settings of media fetching and voice cloning (documented in docs/voices.md). */
const settingsSchema = z.object({
  SVC_MEDIA_ALLOWED_HOSTS: list.default([]),
  SVC_MEDIA_FETCH_TIMEOUT_MS: int(10_000, 100, 600_000),
  SVC_MEDIA_MAX_DOWNLOAD_BYTES: int(25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  SVC_MEDIA_MAX_REDIRECTS: int(3, 0, 10),
  SVC_VOICE_BASE_PRESETS: list.default([...DEFAULT_BASE_PRESETS]),
  SVC_VOICE_WARM_UP: z.enum(['lazy', 'background', 'blocking']).default('lazy'),
});

export type VoiceSettings = z.output<typeof settingsSchema>;
export const VOICE_SETTING_KEYS = Object.keys(settingsSchema.shape);

export function readVoiceSettings(env: Record<string, string | undefined>): VoiceSettings {
  return parseEnvSettings(settingsSchema, env);
}

/** The media fetcher of the service (shared by voices now and video later). */
export function createMediaFetcher(settings: VoiceSettings): MediaFetcher {
  return new SafeHttpMediaFetcher({
    allowedHosts: settings.SVC_MEDIA_ALLOWED_HOSTS,
    timeoutMs: settings.SVC_MEDIA_FETCH_TIMEOUT_MS,
    maxDownloadBytes: settings.SVC_MEDIA_MAX_DOWNLOAD_BYTES,
    maxRedirects: settings.SVC_MEDIA_MAX_REDIRECTS,
  });
}

export interface VoicesDeps {
  dataSource: DataSource;
  blobs: BlobStore;
  codec: AudioCodec;
  catalog: VoiceCatalog;
  logger: Logger;
  clock: Clock;
  ids: IdGenerator;
  hasher: Hasher;
  /** The raw environment (ServerConfig.env): SVC_MEDIA_* and SVC_VOICE_* are read from it. */
  env: Record<string, string | undefined>;
  /** Reuse a media fetcher created elsewhere (e.g. shared with video); one is created otherwise. */
  mediaFetcher?: MediaFetcher;
  /** Replace the repository (tests, embedded use). */
  repository?: VoiceRepository;
}

export interface Voices {
  /** Bind under VOICE_CLONER so SynthesizeSpeech speaks registered and inline cloned voices. */
  cloner: VoiceCloner;
  register: RegisterVoice;
  list: ListVoices;
  get: GetVoice;
  remove: DeleteVoice;
  mediaFetcher: MediaFetcher;
  baseVoices: BaseVoiceLibrary;
  /** The REST routes of the voices API. */
  routes(options: { jsonBodyLimit: number; rateLimit?: Middleware<AppState> }): RouteModule;
}

/**
 * Wires the voices capability: TypeORM rows + blob-store audio, DSP analysis, Rubber Band
 * conversion, safe media fetching. The base presets are measured once per process: by default on
 * the first cloning request (~1 s once), so servers that never clone, test servers included, spend
 * nothing on it; `background` measures right after start, `blocking` before listening.
 */
export async function createVoices(deps: VoicesDeps): Promise<Voices> {
  const settings = readVoiceSettings(deps.env);
  const logger = deps.logger.child({ capability: 'voices' });
  const mediaFetcher = deps.mediaFetcher ?? createMediaFetcher(settings);
  const repository = deps.repository ?? new TypeOrmVoiceRepository(deps.dataSource);
  const analyzer = new DspVoiceAnalyzer();
  const converter = await RubberbandVoiceConverter.create();
  const baseVoices = new BaseVoiceLibrary(deps.catalog, analyzer, settings.SVC_VOICE_BASE_PRESETS, logger);
  const profiler = new VoiceProfiler(analyzer, converter, baseVoices);
  const loader = new ReferenceAudioLoader(mediaFetcher, deps.codec, deps.hasher);
  // A stored voice keeps its base preset as long as the engine offers it.
  const isPresetConfigured = (name: string) => deps.catalog.get(name) !== undefined;

  if (settings.SVC_VOICE_WARM_UP === 'blocking') await baseVoices.warm();
  else if (settings.SVC_VOICE_WARM_UP === 'background') {
    baseVoices.warm().catch((err) => logger.warn({ err: String(err) }, 'base voice calibration failed; retried on first use'));
  }

  const register = new RegisterVoice(loader, profiler, repository, deps.blobs, deps.clock, deps.ids, logger);
  const listVoices = new ListVoices(repository);
  const get = new GetVoice(repository);
  const remove = new DeleteVoice((name) => deps.catalog.isPreset(name), repository, deps.blobs, logger);
  const cloner = new VoiceCloningService(repository, loader, profiler, converter, isPresetConfigured);

  return {
    cloner,
    register,
    list: listVoices,
    get,
    remove,
    mediaFetcher,
    baseVoices,
    routes: (options) => voiceRoutes({ register, list: listVoices, get, remove, ...options }),
  };
}
