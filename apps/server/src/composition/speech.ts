import { z } from 'zod';
import { SHARED_TOKENS, SPEECH_TOKENS, SynthesizeSpeech, VOICE_TOKENS, VoiceCatalog, type SpeechSynthesizer } from '@svc/core';
import {
  EspeakSpeechSynthesizer,
  FliteSpeechSynthesizer,
  KOKORO_ENGLISH_G2P,
  ShortTextLanguageDetector,
} from '@svc/adapters-speech-synthesis';
import { FfmpegAudioCodec } from '@svc/adapters-media';
import { useProcessLauncher } from '@svc/adapters-runtime';
import { neuralSynthesizers, upstreamSynthesizer } from './neural-speech.js';
import { rateLimitMiddleware, speechRoutes } from '@svc/adapters-http';
import { setting } from '../env-settings.js';
import { SERVER_TOKENS } from '../tokens.js';
import { defineModule, type ModuleRoutes } from './module.js';
import { openAiModelAliases } from './openai-model-aliases.js';
import { scratchDirOf } from '../runtime/scratch-dir.js';
import { modelsDirOf } from '../runtime/models-dir.js';
import { warmUp, warmUpOnThisProcess, type WarmUpPolicy } from '../runtime/warm-up.js';

const ENGINES = ['flite', 'espeak'] as const;

/** Text to speech: the engines named in SVC_TTS_ENGINES, ffmpeg, language detection, POST /v1/audio/speech. */
export const speechModule = defineModule({
  name: 'speech',
  docs: 'README.md',
  settings: {
    SVC_TTS_ENGINES: setting
      .list(ENGINES)
      .pipe(z.array(z.enum(ENGINES, { error: `known engines: ${ENGINES.join(', ')}` })).min(1, 'names no engine')),
    SVC_FLITE_WORKERS: setting.int(2, 1, 32),
    // Flite's threads before listening by default: the first request's time to first byte (their
    // memory: docs/deployment.md, Memory and warm-up).
    SVC_SPEECH_WARM_UP: setting.warmUp('blocking'),
    // Neural voices (docs/neural-engines.md): Piper models found here become piper-* presets.
    SVC_MODELS_DIR: setting.string(''),
    SVC_ONNX_THREADS: setting.int(1, 1, 16),
    // How English is spelled for Kokoro voices: kokoro-js's espeak replacements or misaki's symbols (docs/neural-engines.md).
    SVC_KOKORO_ENGLISH: z.enum(KOKORO_ENGLISH_G2P).default('kokoro-js'),
    // espeak-ng threads phonemizing for the neural voices (docs/neural-engines.md, benchmarked in docs/benchmarks.md).
    SVC_PHONEMIZER_WORKERS: setting.int(2, 1, 16),
    // An OpenAI-compatible speech server as an engine (docs/neural-engines.md): its voices become upstream-* presets.
    SVC_UPSTREAM_TTS_URL: setting
      .string('')
      .pipe(z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })])),
    SVC_UPSTREAM_TTS_KEY: setting.string(''),
    SVC_UPSTREAM_TTS_MODEL: setting.string('tts-1'),
    SVC_UPSTREAM_TTS_VOICES: setting.list([]),
    SVC_UPSTREAM_TTS_TIMEOUT_MS: setting.int(30000, 1000, 600000),
    // ffmpeg (every codec and the video encoders) started by a small launcher process instead of a
    // fork of this one (docs/deployment.md, "Child processes"); false spawns directly.
    SVC_PROCESS_LAUNCHER: setting.bool(true),
  },
  bind(provide, config) {
    const {
      SVC_TTS_ENGINES: engines,
      SVC_FLITE_WORKERS: fliteWorkers,
      SVC_MODELS_DIR: modelsDir,
      SVC_ONNX_THREADS: onnxThreads,
      SVC_PHONEMIZER_WORKERS: phonemizerWorkers,
    } = config.settings;
    provide(
      SPEECH_TOKENS.SpeechSynthesizers,
      async (get) => {
        const logger = await get(SHARED_TOKENS.Logger);
        // WARM-UP (speech): the embedded engines load as SVC_SPEECH_WARM_UP says (a worker process never speaks).
        const policy = warmUpOnThisProcess(config, config.settings.SVC_SPEECH_WARM_UP);
        const embedded = await Promise.all(
          engines.map((name) => embeddedEngine(name, policy, { fliteWorkers, scratchDir: scratchDirOf(config.settings.SVC_DATA_DIR) })),
        );
        await warmUp(policy, 'speech engines', () => Promise.all(embedded.map((e) => e.warmUp())), logger);
        const neural = await neuralSynthesizers({
          modelsDir: modelsDirOf(modelsDir, config.settings.SVC_DATA_DIR),
          threads: onnxThreads,
          phonemizerWorkers,
          kokoroEnglish: config.settings.SVC_KOKORO_ENGLISH,
          logger,
        });
        (await get(SERVER_TOKENS.Metrics)).trackNeuralModels(() => neural.flatMap((e) => e.loadedModels()));
        const upstream = await upstreamSynthesizer(config.settings);
        return [...embedded, ...neural, ...(upstream ? [upstream] : [])];
      },
      { close: async (all) => void (await Promise.all(all.map(async (e) => e.close?.()))) },
    );
    // The process launcher (ffmpeg for every codec and the video encoders) lives as long as this server.
    let releaseLauncher = (): Promise<void> => Promise.resolve();
    provide(
      SPEECH_TOKENS.AudioCodec,
      () => {
        releaseLauncher = useProcessLauncher({ enabled: config.settings.SVC_PROCESS_LAUNCHER });
        return new FfmpegAudioCodec();
      },
      { close: () => releaseLauncher() },
    );
    // Script first, then eld's n-grams with an English prior (docs/speech.md, "Which language the default voice speaks").
    provide(SPEECH_TOKENS.LanguageDetector, () => ShortTextLanguageDetector.create());
    provide(SPEECH_TOKENS.VoiceCatalog, async (get) => new VoiceCatalog(await get(SPEECH_TOKENS.SpeechSynthesizers)));
    provide(SPEECH_TOKENS.SynthesizeSpeech, async (get) => (await get(SERVER_TOKENS.SpeechAtRate))());
    // Speech at a given output rate: the REST endpoint uses 24 kHz, realtime sessions their format's rate.
    provide(SERVER_TOKENS.SpeechAtRate, async (get): Promise<SpeechAt> => {
      const [catalog, codec, detector, cloner, metrics, clock] = await Promise.all([
        get(SPEECH_TOKENS.VoiceCatalog),
        get(SPEECH_TOKENS.AudioCodec),
        get(SPEECH_TOKENS.LanguageDetector),
        get(VOICE_TOKENS.VoiceCloner),
        get(SERVER_TOKENS.Metrics),
        get(SHARED_TOKENS.Clock),
      ]);
      return (sampleRate?: number) => new SynthesizeSpeech(catalog, codec, detector, cloner, metrics.speechObserver, { sampleRate, clock });
    });
  },
  routes({ config, get }): ModuleRoutes {
    return {
      authenticated: [
        speechRoutes({
          synthesize: get(SPEECH_TOKENS.SynthesizeSpeech),
          catalog: get(SPEECH_TOKENS.VoiceCatalog),
          jsonBodyLimit: config.settings.SVC_MAX_JSON_BODY_BYTES,
          rateLimit: rateLimitMiddleware(get(SHARED_TOKENS.RateLimiter), 'speech'),
          openAiModelAliases: openAiModelAliases(config),
        }),
      ],
    };
  },
});

/**
 * One embedded engine, its threads not started unless the policy is `blocking` (then create() waits
 * for them). espeak-ng always loads once to list its voices; `lazy` stops it again until first use.
 */
async function embeddedEngine(
  name: (typeof ENGINES)[number],
  policy: WarmUpPolicy,
  options: { fliteWorkers: number; scratchDir: string },
): Promise<SpeechSynthesizer & { warmUp(): Promise<void> }> {
  if (name === 'flite')
    return FliteSpeechSynthesizer.create({ poolSize: options.fliteWorkers, scratchDir: options.scratchDir, warm: policy === 'blocking' });
  return EspeakSpeechSynthesizer.create({ warm: policy !== 'lazy' });
}

/** SynthesizeSpeech at an output sample rate (undefined: the REST default). */
export type SpeechAt = (sampleRate?: number) => SynthesizeSpeech;
