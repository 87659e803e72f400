import type { Logger, SpeechSynthesizer } from '@svc/core';
import { EspeakPhonemizer, KokoroSpeechSynthesizer, PiperSpeechSynthesizer, scanModelDirectory, UpstreamSpeechSynthesizer, type NeuralEngine } from '@svc/adapters-inference';

export interface NeuralSpeechOptions {
  modelsDir: string;
  threads: number;
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
  if (scan.piper.length === 0 && scan.kokoro.length === 0) return [];
  const phonemizer = await EspeakPhonemizer.create();
  const onSkipped = (name: string, reason: string) => logger.warn({ modelsDir }, `model ${name}: skipped, ${reason}`);
  const engines: NeuralEngine[] = [];
  if (scan.piper.length > 0) engines.push(await PiperSpeechSynthesizer.create({ models: scan.piper, phonemizer, threads, onSkipped }));
  if (scan.kokoro.length > 0) engines.push(await KokoroSpeechSynthesizer.create({ models: scan.kokoro.map((k) => k.model), phonemizer, threads, onSkipped }));
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
  if (s.SVC_UPSTREAM_TTS_VOICES.length === 0) throw new Error('Invalid configuration SVC_UPSTREAM_TTS_VOICES: SVC_UPSTREAM_TTS_URL is set but no voice is listed');
  // `voice` or `voice:language` (language defaults to en)
  const voices = s.SVC_UPSTREAM_TTS_VOICES.map((entry) => {
    const [voice, language] = entry.split(':');
    return { voice: voice!, language: (language || 'en').toLowerCase() };
  });
  return UpstreamSpeechSynthesizer.create({ baseUrl: s.SVC_UPSTREAM_TTS_URL, apiKey: s.SVC_UPSTREAM_TTS_KEY || undefined, model: s.SVC_UPSTREAM_TTS_MODEL, voices, timeoutMs: s.SVC_UPSTREAM_TTS_TIMEOUT_MS });
}
