import { DEFAULT_BASE_PRESETS, primaryLanguage, type Logger, type PresetVoice, type SpeechSynthesizer } from '@svc/core';
import {
  EspeakPhonemizer,
  KokoroSpeechSynthesizer,
  PiperSpeechSynthesizer,
  UpstreamSpeechSynthesizer,
  type KokoroEnglishG2P,
  type NeuralEngine,
} from '@svc/adapters-speech-synthesis';
import { scanModelDirectory } from '../runtime/model-directory.js';

export interface NeuralSpeechOptions {
  modelsDir: string;
  threads: number;
  /** espeak-ng phonemizer threads shared by every neural voice (SVC_PHONEMIZER_WORKERS). */
  phonemizerWorkers: number;
  /** How English is spelled for Kokoro (SVC_KOKORO_ENGLISH; default kokoro-js). */
  kokoroEnglish?: KokoroEnglishG2P;
  logger: Logger;
}

/**
 * The neural engines whose models are in the model directory (none when it is empty or missing).
 * A broken or incomplete model is one warning at start-up and is skipped; the server still starts.
 */
export async function neuralSynthesizers(options: NeuralSpeechOptions): Promise<NeuralEngine[]> {
  const { logger, modelsDir, threads } = options;
  const scan = await scanModelDirectory(modelsDir);
  for (const warning of scan.warnings) logger.warn({ modelsDir }, warning);
  for (const { model } of scan.kokoro) {
    if (model.skipped.length > 0)
      logger.info(
        { modelsDir, voices: model.skipped.map((s) => s.voice) },
        `kokoro ${model.name}: voices skipped (${[...new Set(model.skipped.map((s) => s.reason))].join('; ')})`,
      );
  }
  if (scan.piper.length === 0 && scan.kokoro.length === 0) return [];
  const phonemizer = await EspeakPhonemizer.create(options.phonemizerWorkers);
  const onSkipped = (name: string, reason: string) => logger.warn({ modelsDir }, `model ${name}: skipped, ${reason}`);
  const engines: NeuralEngine[] = [];
  if (scan.piper.length > 0) engines.push(await PiperSpeechSynthesizer.create({ models: scan.piper, phonemizer, threads, onSkipped }));
  if (scan.kokoro.length > 0)
    engines.push(
      await KokoroSpeechSynthesizer.create({
        models: scan.kokoro.map((k) => k.model),
        phonemizer,
        threads,
        onSkipped,
        englishG2P: options.kokoroEnglish,
      }),
    );
  await phonemizer.release(); // the engines hold it now; it stops with the last one
  const usable: NeuralEngine[] = [];
  for (const engine of engines) {
    if (engine.voices().length > 0) usable.push(engine);
    else await engine.close();
  }
  for (const engine of usable) logger.info({ voices: engine.voices().map((v) => v.name) }, `${engine.engine} voices loaded`);
  return usable;
}

export interface UpstreamSettings {
  SVC_UPSTREAM_TTS_URL: string;
  SVC_UPSTREAM_TTS_KEY: string;
  SVC_UPSTREAM_TTS_MODEL: string;
  SVC_UPSTREAM_TTS_VOICES: string[];
  SVC_UPSTREAM_TTS_TIMEOUT_MS: number;
}

/** The upstream speech server engine when SVC_UPSTREAM_TTS_URL and its voices are set. */
export async function upstreamSynthesizer(s: UpstreamSettings): Promise<SpeechSynthesizer | null> {
  if (!s.SVC_UPSTREAM_TTS_URL) return null;
  if (s.SVC_UPSTREAM_TTS_VOICES.length === 0)
    throw new Error('Invalid configuration SVC_UPSTREAM_TTS_VOICES: SVC_UPSTREAM_TTS_URL is set but no voice is listed');
  // `voice` or `voice:language` (language defaults to en)
  const voices = s.SVC_UPSTREAM_TTS_VOICES.map((entry) => {
    const [voice, language] = entry.split(':');
    return { voice: voice!, language: (language || 'en').toLowerCase() };
  });
  return UpstreamSpeechSynthesizer.create({
    baseUrl: s.SVC_UPSTREAM_TTS_URL,
    apiKey: s.SVC_UPSTREAM_TTS_KEY || undefined,
    model: s.SVC_UPSTREAM_TTS_MODEL,
    voices,
    timeoutMs: s.SVC_UPSTREAM_TTS_TIMEOUT_MS,
  });
}

/** Neural engines whose voices run here (upstream voices are not calibrated: that would call the remote server). */
const LOCAL_NEURAL_ENGINES = new Set(['piper', 'kokoro']);
/** Base voices measured when they are chosen automatically (each costs one calibration reading at first use). */
export const NEURAL_BASE_LIMIT = 6;

/**
 * The presets cloned voices may start from when SVC_VOICE_BASE_PRESETS is not set: the local neural
 * voices when there are any (they sound far better and conversion does the rest), English ones first
 * (the calibration reading is English) and genders alternating, at most NEURAL_BASE_LIMIT; else
 * Flite's slt, rms and awb. The same analysis as always then picks the closest for each reference.
 */
export function automaticBasePresets(voices: PresetVoice[]): string[] {
  const neural = voices.filter((v) => LOCAL_NEURAL_ENGINES.has(v.engine));
  if (neural.length === 0) return [...DEFAULT_BASE_PRESETS];
  const english = neural.filter((v) => primaryLanguage(v.language) === 'en');
  const pool = english.length > 0 ? english : neural;
  const byGender = ['female', 'male', 'neutral'].map((g) => pool.filter((v) => v.gender === g));
  const chosen: string[] = [];
  for (let i = 0; chosen.length < Math.min(NEURAL_BASE_LIMIT, pool.length); i++) {
    for (const group of byGender) if (group[i] && chosen.length < NEURAL_BASE_LIMIT) chosen.push(group[i]!.name);
  }
  return chosen;
}
