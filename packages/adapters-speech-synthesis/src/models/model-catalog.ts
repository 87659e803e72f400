// The models `npm run models -- pull NAME` knows: exact repositories on the Hugging Face hub, the
// revision each is pulled at and the files taken (with any external data the repository has beside
// a model file). A revision is a commit hash where one was found published (pinned: the files can
// never change under it); otherwise a ref (a tag, else `main`), resolved to its commit when the
// pull starts and recorded. docs/neural-engines.md lists them with
// sizes, licences, languages and the projects' published figures.

export type CatalogEngine = 'kokoro' | 'piper' | 'whisper' | 'moonshine' | 'smart-turn';

/** ONNX precision variants a catalog model offers: full precision, or the 8-bit export. */
export type CatalogVariant = 'fp32' | 'quantized';

export interface CatalogEntry {
  /** The name to pull and the model's name in the model directory. */
  name: string;
  engine: CatalogEngine;
  repo: string;
  /** A 40-hex commit when pinned, else the ref that is resolved at pull time. */
  revision: string;
  /** Where the pinned commit was found, or why a ref is used. */
  revisionNote: string;
  /** Repository paths taken for each variant (the first variant is the default). */
  variants: Partial<Record<CatalogVariant, string[]>>;
  /** Also every file under this folder with this ending (Kokoro's voices), except names starting with these letters. */
  listed?: { under: string; ending: string; skipPrefixes: string[] };
  languages: string[];
  licence: string;
}

const PIPER_REVISION = 'v1.0.0';
const PIPER_NOTE = "tag v1.0.0 of rhasspy/piper-voices (the ref Piper's own VOICES.md links to; resolved to its commit at pull time)";
const MAIN_NOTE = 'main, resolved to its commit at pull time and recorded (no published commit hash was found to pin)';
/** How the Whisper and Moonshine pins were found (the hub's API cannot be reached from where they were recorded). */
const ASR_PIN_NOTE = 'commit pinned, with per-file sizes and checksums, by several independent public projects that download this export';

function piper(name: string, path: string, languages: string[]): CatalogEntry {
  return {
    name,
    engine: 'piper',
    repo: 'rhasspy/piper-voices',
    revision: PIPER_REVISION,
    revisionNote: PIPER_NOTE,
    variants: { fp32: [`${path}/${name}.onnx`, `${path}/${name}.onnx.json`] },
    languages,
    licence: "MIT (piper-voices); each voice's dataset has its own terms (its MODEL_CARD): read it before commercial use",
  };
}

/** A transformers.js speech-to-text export: configs, tokenizer, encoder and merged decoder. */
function transformersAsr(
  name: string,
  engine: 'whisper' | 'moonshine',
  repo: string,
  revision: string,
  revisionNote: string,
  languages: string[],
  licence: string,
): CatalogEntry {
  const common = ['config.json', 'generation_config.json', 'preprocessor_config.json', 'tokenizer.json', 'tokenizer_config.json'];
  const graphs = (suffix: string) => [`onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`];
  return {
    name,
    engine,
    repo,
    revision,
    revisionNote,
    variants: { fp32: [...common, ...graphs('')], quantized: [...common, ...graphs('_quantized')] },
    languages,
    licence,
  };
}

const WHISPER_LANGUAGES = ['multilingual (99 languages)'];

export const MODEL_CATALOG: readonly CatalogEntry[] = [
  {
    name: 'kokoro-82m-v1.0',
    engine: 'kokoro',
    repo: 'onnx-community/Kokoro-82M-v1.0-ONNX',
    revision: '1939ad2a8e416c0acfeecc08a694d14ef25f2231',
    revisionNote: 'commit pinned by a public project that downloads this export (its model and voices)',
    variants: {
      fp32: ['config.json', 'tokenizer.json', 'onnx/model.onnx'],
      quantized: ['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx'],
    },
    // Japanese (j) and Mandarin (z) voices are skipped by the engine (kokoro-model.ts): not downloaded.
    listed: { under: 'voices', ending: '.bin', skipPrefixes: ['j', 'z'] },
    languages: ['en-us', 'en-gb', 'es', 'fr', 'hi', 'it', 'pt-br'],
    licence: 'Apache-2.0',
  },
  piper('en_US-lessac-medium', 'en/en_US/lessac/medium', ['en-us']),
  piper('en_GB-alan-medium', 'en/en_GB/alan/medium', ['en-gb']),
  piper('de_DE-thorsten-medium', 'de/de_DE/thorsten/medium', ['de']),
  piper('fr_FR-siwis-medium', 'fr/fr_FR/siwis/medium', ['fr']),
  piper('es_ES-davefx-medium', 'es/es_ES/davefx/medium', ['es']),
  piper('it_IT-riccardo-x_low', 'it/it_IT/riccardo/x_low', ['it']),
  piper('pt_BR-faber-medium', 'pt/pt_BR/faber/medium', ['pt-br']),
  transformersAsr(
    'whisper-tiny',
    'whisper',
    'onnx-community/whisper-tiny',
    'ff4177021cc41f7db950912b73ea4fdf7d01d8e7',
    ASR_PIN_NOTE,
    WHISPER_LANGUAGES,
    'MIT (OpenAI Whisper weights)',
  ),
  transformersAsr(
    'whisper-base',
    'whisper',
    'onnx-community/whisper-base',
    '1846881b6b3a3024392c1eea3ad983695bc23925',
    ASR_PIN_NOTE,
    WHISPER_LANGUAGES,
    'MIT (OpenAI Whisper weights)',
  ),
  transformersAsr(
    'whisper-small',
    'whisper',
    'onnx-community/whisper-small',
    '36050c46d777d46dc4b5f43f6d90574fc38f8732',
    ASR_PIN_NOTE,
    WHISPER_LANGUAGES,
    'MIT (OpenAI Whisper weights)',
  ),
  transformersAsr('whisper-tiny.en', 'whisper', 'Xenova/whisper-tiny.en', 'main', MAIN_NOTE, ['en'], 'MIT (OpenAI Whisper weights)'),
  transformersAsr('whisper-base.en', 'whisper', 'Xenova/whisper-base.en', 'main', MAIN_NOTE, ['en'], 'MIT (OpenAI Whisper weights)'),
  transformersAsr('whisper-small.en', 'whisper', 'Xenova/whisper-small.en', 'main', MAIN_NOTE, ['en'], 'MIT (OpenAI Whisper weights)'),
  {
    // semantic_vad's end-of-turn model (SVC_TURN_MODEL=smart-turn-v3.2): the 8-bit CPU export by default.
    name: 'smart-turn-v3.2',
    engine: 'smart-turn',
    repo: 'pipecat-ai/smart-turn-v3',
    revision: 'main',
    revisionNote: MAIN_NOTE,
    variants: { quantized: ['smart-turn-v3.2-cpu.onnx'], fp32: ['smart-turn-v3.2-gpu.onnx'] },
    languages: ['multilingual (23 languages)'],
    licence: 'BSD-2-Clause',
  },
  transformersAsr(
    'moonshine-tiny',
    'moonshine',
    'onnx-community/moonshine-tiny-ONNX',
    'a6da1241cd305dcd64eab1edbd615f2bb9aabb95',
    'commit pinned (with per-file sha256) by a public project that provisions this export',
    ['en'],
    'MIT (Useful Sensors Moonshine)',
  ),
  transformersAsr(
    'moonshine-base',
    'moonshine',
    'onnx-community/moonshine-base-ONNX',
    'b1e9b6aae3c3c7298f10c3798393fdf38e8fbbad',
    ASR_PIN_NOTE,
    ['en'],
    'MIT (Useful Sensors Moonshine)',
  ),
];

export function catalogEntry(name: string): CatalogEntry | undefined {
  return MODEL_CATALOG.find((e) => e.name.toLowerCase() === name.toLowerCase());
}

/** The files of a variant (the entry's first when none is asked for); undefined when the entry has no such variant. */
export function catalogFiles(entry: CatalogEntry, variant?: CatalogVariant): string[] | undefined {
  const chosen = variant ?? (Object.keys(entry.variants)[0] as CatalogVariant);
  return entry.variants[chosen];
}
