import type { AudioCodec, LanguageDetector, SpeechSynthesizer } from '@svc/core';
import { EspeakSpeechSynthesizer, FfmpegAudioCodec, FliteSpeechSynthesizer, FrancLanguageDetector } from '@svc/adapters-inference';
import type { ServerConfig } from '../config.js';
import { scratchDirOf } from '../runtime/scratch-dir.js';

/** The speech engines named in SVC_TTS_ENGINES, started and ready (their voices known). */
export async function createSpeechEngines(config: ServerConfig): Promise<SpeechSynthesizer[]> {
  const engines: SpeechSynthesizer[] = [];
  for (const name of config.ttsEngines) {
    if (name === 'flite') engines.push(await FliteSpeechSynthesizer.create({ poolSize: config.fliteWorkers, scratchDir: scratchDirOf(config.dataDir) }));
    else if (name === 'espeak') engines.push(await EspeakSpeechSynthesizer.create());
    else throw new Error(`Unknown speech engine '${name}' in SVC_TTS_ENGINES (known: flite, espeak).`);
  }
  if (engines.length === 0) throw new Error('SVC_TTS_ENGINES names no engine.');
  return engines;
}

export function createAudioCodec(): AudioCodec {
  return new FfmpegAudioCodec();
}

export function createLanguageDetector(): LanguageDetector {
  return new FrancLanguageDetector();
}
