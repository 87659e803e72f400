import { z } from 'zod';
import {
  BaseVoiceLibrary,
  DeleteVoice,
  GetVoice,
  LimitedDownloads,
  ListVoices,
  ReferenceAudioLoader,
  RegisterVoice,
  SHARED_TOKENS,
  SPEECH_TOKENS,
  VOICE_TOKENS,
  VoiceCloningService,
  VoiceProfiler,
  type MediaFetcher,
} from '@svc/core';
import { DspVoiceAnalyzer, RubberbandVoiceConverter } from '@svc/adapters-voice-cloning';
import { SafeHttpMediaFetcher } from '@svc/adapters-media';
import { TypeOrmVoiceRepository } from '@svc/adapters-storage';
import { rateLimitMiddleware, voiceRoutes } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule, type ModuleRoutes } from './module.js';
import { warmUp, warmUpOnThisProcess } from '../runtime/warm-up.js';
import { automaticBasePresets } from './neural-speech.js';

/** The voices use cases the REST routes call. */
export interface VoiceUseCases {
  register: RegisterVoice;
  list: ListVoices;
  get: GetVoice;
  remove: DeleteVoice;
  baseVoices: BaseVoiceLibrary;
  /** Speaks registered and inline cloned voices (bound again as VOICE_TOKENS.VoiceCloner). */
  cloner: VoiceCloningService;
}

/**
 * Voice cloning (documented in docs/voices.md): TypeORM rows + blob-store audio, DSP analysis,
 * Rubber Band conversion, SSRF-safe media fetching. The base presets are measured once per process:
 * by default on the first cloning request (one synthesis per preset, once), so servers that never clone, test servers
 * included, spend nothing on it; `background` measures right after start, `blocking` before listening.
 */
export const voicesModule = defineModule({
  name: 'voices',
  docs: 'docs/voices.md',
  settings: {
    SVC_MEDIA_ALLOWED_HOSTS: setting.list(),
    SVC_MEDIA_FETCH_TIMEOUT_MS: setting.int(10_000, 100, 600_000),
    SVC_MEDIA_MAX_DOWNLOAD_BYTES: setting.int(25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    SVC_MEDIA_MAX_REDIRECTS: setting.int(3, 0, 10),
    // Empty: automatic (local neural voices when there are any, else slt,rms,awb; docs/voices.md).
    SVC_VOICE_BASE_PRESETS: setting.list([]),
    SVC_VOICE_WARM_UP: setting.warmUp('lazy'),
    // Voices one key may store; 0: no limit.
    SVC_VOICES_MAX_PER_KEY: setting.int(100, 0, 1_000_000),
  },
  bind(provide, config) {
    const s = config.settings;
    // A URL download counts in the key's large transfers in progress, as a large request body does.
    provide<MediaFetcher>(
      SHARED_TOKENS.MediaFetcher,
      async (get) =>
        new LimitedDownloads(
          new SafeHttpMediaFetcher({
            allowedHosts: s.SVC_MEDIA_ALLOWED_HOSTS,
            timeoutMs: s.SVC_MEDIA_FETCH_TIMEOUT_MS,
            maxDownloadBytes: s.SVC_MEDIA_MAX_DOWNLOAD_BYTES,
            maxRedirects: s.SVC_MEDIA_MAX_REDIRECTS,
          }),
          await get(SERVER_TOKENS.LargeBodies),
        ),
    );
    provide(VOICE_TOKENS.VoiceRepository, async (get) => new TypeOrmVoiceRepository(await get(SERVER_TOKENS.DataSource)));
    provide(VOICE_TOKENS.VoiceAnalyzer, () => new DspVoiceAnalyzer());
    // Loaded by the warm-up below, or by the first conversion.
    provide(VOICE_TOKENS.VoiceConverter, () => RubberbandVoiceConverter.create({ warm: false }));

    provide(SERVER_TOKENS.VoiceUseCases, async (get): Promise<VoiceUseCases> => {
      const logger = (await get(SHARED_TOKENS.Logger)).child({ capability: 'voices' });
      const catalog = await get(SPEECH_TOKENS.VoiceCatalog);
      const repository = await get(VOICE_TOKENS.VoiceRepository);
      const blobs = await get(SHARED_TOKENS.BlobStore);
      const analyzer = await get(VOICE_TOKENS.VoiceAnalyzer);
      const converter = await get(VOICE_TOKENS.VoiceConverter);
      const basePresets = s.SVC_VOICE_BASE_PRESETS.length > 0 ? s.SVC_VOICE_BASE_PRESETS : automaticBasePresets(catalog.list());
      const baseVoices = new BaseVoiceLibrary(catalog, analyzer, basePresets, logger);
      const profiler = new VoiceProfiler(analyzer, converter, baseVoices);
      const loader = new ReferenceAudioLoader(
        await get(SHARED_TOKENS.MediaFetcher),
        await get(SPEECH_TOKENS.AudioCodec),
        await get(SHARED_TOKENS.Hasher),
      );
      // A stored voice keeps its base preset as long as the engine offers it.
      const isPresetConfigured = (name: string) => catalog.get(name) !== undefined;
      // WARM-UP (voices): Rubber Band's WASM engine and the base presets' calibration (a worker never clones).
      await warmUp(
        warmUpOnThisProcess(config, s.SVC_VOICE_WARM_UP),
        'voice cloning (base voice calibration)',
        () => Promise.all([converter.warmUp?.(), baseVoices.warm()]),
        logger,
      );
      const clock = await get(SHARED_TOKENS.Clock);
      const ids = await get(SHARED_TOKENS.IdGenerator);
      return {
        register: new RegisterVoice(loader, profiler, repository, blobs, clock, ids, { maxPerKey: s.SVC_VOICES_MAX_PER_KEY }, logger),
        list: new ListVoices(repository),
        get: new GetVoice(repository),
        remove: new DeleteVoice((name) => catalog.isPreset(name), repository, blobs, logger),
        baseVoices,
        cloner: new VoiceCloningService(repository, loader, profiler, converter, isPresetConfigured),
      };
    });
    // SynthesizeSpeech speaks registered and inline cloned voices through this port.
    provide(VOICE_TOKENS.VoiceCloner, async (get) => (await get(SERVER_TOKENS.VoiceUseCases)).cloner);
  },
  routes({ config, get }): ModuleRoutes {
    const voices = get(SERVER_TOKENS.VoiceUseCases);
    return {
      authenticated: [
        voiceRoutes({
          register: voices.register,
          list: voices.list,
          get: voices.get,
          remove: voices.remove,
          jsonBodyLimit: config.settings.SVC_MAX_JSON_BODY_BYTES,
          rateLimit: rateLimitMiddleware(get(SHARED_TOKENS.RateLimiter), 'voices'),
        }),
      ],
    };
  },
});
