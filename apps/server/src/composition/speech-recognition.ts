import { join } from 'node:path';
import type { DetailedTranscript, Logger, PcmAudio, SpeechRecognizer, Transcriber, TranscriptionOptions } from '@svc/core';
import { PocketsphinxSpeechRecognizer, TransformersSpeechRecognizer, UpstreamSpeechRecognizer } from '@svc/adapters-speech-recognition';
import { modelsDirOf } from '../runtime/models-dir.js';

/** SVC_ASR_ENGINE: `auto`, `pocketsphinx`, `off`, `upstream`, or `whisper:<model>` / `moonshine:<model>`. */
export const ASR_ENGINE_PATTERN = /^(auto|pocketsphinx|off|upstream|(whisper|moonshine):[A-Za-z0-9][\w.-]*)$/;

export interface RecognizerSettings {
  SVC_ASR_ENGINE: string;
  SVC_ASR_DECODERS: number;
  SVC_ASR_WARM_DECODERS: number;
  SVC_MODELS_DIR: string;
  SVC_ONNX_THREADS: number;
  SVC_UPSTREAM_ASR_URL: string;
  SVC_UPSTREAM_ASR_KEY: string;
  SVC_UPSTREAM_ASR_MODEL: string;
  SVC_UPSTREAM_ASR_TIMEOUT_MS: number;
}

/** The recognizer and what /readyz and the banner say about it. */
export interface SelectedRecognizer {
  recognizer: SpeechRecognizer;
  /** `pocketsphinx`, `whisper:<model>`, `moonshine:<model>` or `upstream:<model>`. */
  name: string;
  detail: string;
  /** ISO 639-1 codes it recognizes (what a Wyoming client is told). */
  languages: readonly string[];
  /** `languages` is all it hears (a transcription hint outside it is refused); false for an upstream server, which does not say. */
  languagesComplete: boolean;
  /** Its stream reports the words heard so far while audio arrives (pocketsphinx's decoders do; buffered engines do not). */
  partialResults: boolean;
  /** Neural recognizers: the loaded model for the svc_neural_model_bytes gauge. */
  loadedModels?: () => { engine: string; model: string; bytes: number }[];
}

/**
 * Starts the recognizer SVC_ASR_ENGINE names. An explicitly named engine that cannot start stops
 * the server with its reason (a missing model names the path); only `auto` falls back to none.
 */
export async function selectSpeechRecognizer(s: RecognizerSettings, dataDir: string, logger: Logger): Promise<SelectedRecognizer | null> {
  const engine = s.SVC_ASR_ENGINE;
  if (engine === 'off') return null;
  if (engine === 'upstream') {
    if (!s.SVC_UPSTREAM_ASR_URL) throw new Error('Invalid configuration SVC_ASR_ENGINE: upstream needs SVC_UPSTREAM_ASR_URL');
    const recognizer = new UpstreamSpeechRecognizer({
      baseUrl: s.SVC_UPSTREAM_ASR_URL,
      apiKey: s.SVC_UPSTREAM_ASR_KEY || undefined,
      model: s.SVC_UPSTREAM_ASR_MODEL,
      timeoutMs: s.SVC_UPSTREAM_ASR_TIMEOUT_MS,
    });
    // The upstream server does not say which languages it knows: English is the one promised.
    return {
      recognizer,
      name: `upstream:${s.SVC_UPSTREAM_ASR_MODEL}`,
      detail: `upstream ${s.SVC_UPSTREAM_ASR_URL} (${s.SVC_UPSTREAM_ASR_MODEL}), per turn`,
      languages: ['en'],
      languagesComplete: false,
      partialResults: false,
    };
  }
  const neural = /^(whisper|moonshine):(.+)$/.exec(engine);
  if (neural) {
    const [, family, model] = neural;
    const recognizer = await TransformersSpeechRecognizer.create({
      dir: join(modelsDirOf(s.SVC_MODELS_DIR, dataDir), model!),
      name: model,
      threads: s.SVC_ONNX_THREADS,
    });
    if (recognizer.engine !== family) {
      await recognizer.close();
      throw new Error(`Invalid configuration SVC_ASR_ENGINE: model ${model} is a ${recognizer.engine} model, not ${family}`);
    }
    logger.info({ model, engine: family, languages: recognizer.languages.length }, 'neural speech recognizer loaded');
    return {
      recognizer,
      name: `${family}:${model}`,
      detail: `${family} ${model} (onnxruntime, own thread), per turn`,
      languages: recognizer.languages,
      languagesComplete: true,
      partialResults: false,
      loadedModels: () => recognizer.loadedModels(),
    };
  }
  const recognizer = await PocketsphinxSpeechRecognizer.create({
    decoders: s.SVC_ASR_DECODERS,
    warmDecoders: s.SVC_ASR_WARM_DECODERS,
    onDecoderWait: ({ waitedMs, queued }) =>
      logger.warn(
        { waitedMs: Math.round(waitedMs), queued, decoders: s.SVC_ASR_DECODERS },
        'a realtime turn waited for a speech decoder (raise SVC_ASR_DECODERS)',
      ),
  });
  if (!recognizer.speakerNormalization) {
    // Said once, where an operator looks: recognition still works, but one caller's channel shapes the next caller's first turn.
    logger.warn(
      { engine: 'pocketsphinx' },
      'this sphinxbase build does not let the decoders set their cepstral mean; speaker normalization carries across callers',
    );
  }
  return {
    recognizer,
    name: 'pocketsphinx',
    detail: `pocketsphinx, streaming decoders (up to ${s.SVC_ASR_DECODERS})`,
    languages: ['en'],
    languagesComplete: true,
    partialResults: true,
  };
}

type Detailed = SpeechRecognizer & {
  transcribeDetailed?(audio: PcmAudio, options: TranscriptionOptions, signal?: AbortSignal): Promise<DetailedTranscript>;
};

/** The recognizer seen whole (the transcription endpoint): its own details where it has them, else one segment. */
export function asTranscriber(
  selected: Pick<SelectedRecognizer, 'recognizer' | 'name' | 'languages' | 'languagesComplete' | 'partialResults'>,
): Transcriber {
  const { recognizer, name } = selected;
  const r = recognizer as Detailed;
  return {
    name,
    languages: selected.languages,
    languagesComplete: selected.languagesComplete,
    partialResults: selected.partialResults,
    ...(recognizer.openStream ? { openStream: (options, signal) => recognizer.openStream!(options, signal) } : {}),
    async transcribe(audio, options, signal) {
      if (r.transcribeDetailed) return r.transcribeDetailed(audio, options, signal);
      const { text } = await r.transcribe(audio, options, signal);
      const duration = audio.samples.length / audio.sampleRate;
      return { text, language: options.language, duration, segments: text ? [{ start: 0, end: duration, text }] : [] };
    },
  };
}
