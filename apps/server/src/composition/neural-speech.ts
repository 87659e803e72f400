import type { Logger, SpeechSynthesizer } from '@svc/core';
import { EspeakPhonemizer, PiperSpeechSynthesizer, scanModelDirectory } from '@svc/adapters-inference';

export interface NeuralSpeechOptions {
  modelsDir: string;
  threads: number;
  logger: Logger;
}

/**
 * The neural engines whose models are in the model directory (none when it is empty or missing).
 * A broken or incomplete model is one warning at start-up and is skipped; the server still starts.
 */
export async function neuralSynthesizers(options: NeuralSpeechOptions): Promise<SpeechSynthesizer[]> {
  const { logger } = options;
  const scan = await scanModelDirectory(options.modelsDir);
  for (const warning of scan.warnings) logger.warn({ modelsDir: options.modelsDir }, warning);
  if (scan.piper.length === 0) return [];
  const piper = await PiperSpeechSynthesizer.create({
    models: scan.piper,
    phonemizer: await EspeakPhonemizer.create(),
    threads: options.threads,
    onSkipped: (name, reason) => logger.warn({ modelsDir: options.modelsDir }, `model ${name}: skipped, ${reason}`),
  });
  logger.info({ voices: piper.voices().map((v) => v.name) }, 'piper voices loaded');
  return piper.voices().length > 0 ? [piper] : (await piper.close(), []);
}
