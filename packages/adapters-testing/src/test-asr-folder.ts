import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeOnnxModelWithExternalData } from '@svc/adapters-runtime';
import {
  seq2seqTestDecoder,
  seq2seqTestEncoder,
  seq2seqTestEncoderGraph,
  type Seq2SeqTestShape,
  type Seq2SeqTestTables,
} from './seq2seq-test-models.js';

// A whole model folder in the transformers.js layout, built from the test models, with a small
// tokenizer and generation config of the real shape (special tokens renumbered into a small vocab).

export const TEST_ASR_SHAPE: Seq2SeqTestShape = { layers: 2, heads: 2, headDim: 4, frames: 6 };

/** Whisper-style vocabulary: byte-level BPE pieces ("Ġ" is a space, "Ã©" the two bytes of é). */
export const TEST_WHISPER_TOKENS = {
  pieces: ['!', 'Ġ', 'Ġhello', 'Ġworld', 'Ġcaf', 'Ã©', 'Ġhallo', 'Ġbad', 'Ġdear', 'Ġloud', 'Ġthere'],
  eos: 40,
  sot: 41,
  en: 42,
  de: 43,
  translate: 44,
  transcribe: 45,
  noSpeech: 47,
  noTimestamps: 48,
  vocab: 52,
} as const;

const W = TEST_WHISPER_TOKENS;
/**
 * The test Whisper decoder's tables. After the prompt it would say the blank (begin-suppressed) and
 * then picks " hello"; after " hello" the suppressed " bad", else " there" (9.5) unless the step ran
 * with the cache (use_cache_branch adds 1 to " world": 10); then " caf", "é", EOS. A row computed at
 * sequence position 6 prefers " dear" (20), so the four-token multilingual prompt ends "... caf dear"
 * while the English-only two-token prompt ends "... café". After <|startoftranscript|> <|de|> scores
 * above <|en|> (language detection). A loud encoder output (mean > 0) says " loud" and stops.
 */
export const TEST_WHISPER_TABLES: Seq2SeqTestTables = {
  vocab: W.vocab,
  maxPositions: 16,
  next: [
    [W.noTimestamps, 1, 10],
    [W.noTimestamps, 2, 9],
    [2, 7, 10],
    [2, 10, 9.5],
    [2, 3, 9],
    [3, 4, 10],
    [4, 5, 10],
    [5, W.eos, 10],
    [8, W.eos, 10],
    [W.sot, W.de, 10],
    [W.sot, W.en, 9],
    [9, W.eos, 100],
  ],
  atPosition: [[6, 8, 20]],
  encoderMean: [[9, 40]],
  cacheBranch: [[3, 1]],
};

/** Letters and partial pieces (ids 11-25) that `TEST_WHISPER_MERGES` build " hello" and " world" from (prompt encoding). */
const W_LETTERS = ['h', 'e', 'l', 'o', 'w', 'r', 'd', 'Ġh', 'Ġhe', 'Ġhel', 'Ġhell', 'Ġw', 'Ġwo', 'Ġwor', 'Ġworl'];
export const TEST_WHISPER_MERGES = ['Ġ h', 'Ġh e', 'Ġhe l', 'Ġhel l', 'Ġhell o', 'Ġ w', 'Ġw o', 'Ġwo r', 'Ġwor l', 'Ġworl d'];
/** <|startofprev|> sits in the filler ids below EOS (real Whisper has it after <|startoflm|>). */
export const TEST_WHISPER_START_OF_PREV = 39;

export function testWhisperTokenizer(): object {
  const vocab: Record<string, number> = {};
  [...W.pieces, ...W_LETTERS].forEach((p, i) => (vocab[p] = i));
  for (let i = W.pieces.length + W_LETTERS.length; i < W.eos; i++) vocab[`tok${i}`] = i;
  const special = [
    [W.eos, '<|endoftext|>'],
    [W.sot, '<|startoftranscript|>'],
    [W.en, '<|en|>'],
    [W.de, '<|de|>'],
    [W.translate, '<|translate|>'],
    [W.transcribe, '<|transcribe|>'],
    [46, '<|startoflm|>'],
    [W.noSpeech, '<|nospeech|>'],
    [W.noTimestamps, '<|notimestamps|>'],
    [49, '<|0.00|>'],
    [50, '<|0.02|>'],
    [51, '<|0.04|>'],
    [TEST_WHISPER_START_OF_PREV, '<|startofprev|>'],
  ] as const;
  return {
    version: '1.0',
    added_tokens: special.map(([id, content]) => ({ id, content, special: true })),
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true },
    model: { type: 'BPE', vocab, merges: TEST_WHISPER_MERGES },
  };
}

export function testWhisperGenerationConfig(englishOnly = false): object {
  return {
    decoder_start_token_id: W.sot,
    eos_token_id: W.eos,
    pad_token_id: W.eos,
    no_timestamps_token_id: W.noTimestamps,
    max_length: 12,
    suppress_tokens: [7],
    begin_suppress_tokens: [1, W.eos],
    ...(englishOnly
      ? {}
      : {
          is_multilingual: true,
          lang_to_id: { '<|en|>': W.en, '<|de|>': W.de },
          task_to_id: { translate: W.translate, transcribe: W.transcribe },
        }),
  };
}

/** Moonshine-style vocabulary: SentencePiece pieces with byte fallback. */
export const TEST_MOONSHINE_TOKENS = {
  pieces: ['<unk>', '<s>', '</s>', '▁hello', '▁world', '<0xC3>', '<0xA9>', '▁loud'],
  vocab: 12,
} as const;

/** Moonshine: " hello world é" then EOS; a loud input (mean > 0) says "loud" and stops. */
export const TEST_MOONSHINE_TABLES: Seq2SeqTestTables = {
  vocab: TEST_MOONSHINE_TOKENS.vocab,
  maxPositions: 64,
  next: [
    [1, 3, 10],
    [3, 4, 10],
    [4, 5, 10],
    [5, 6, 10],
    [6, 2, 10],
    [7, 2, 100],
  ],
  encoderMean: [[7, 40]],
};

function testMoonshineTokenizer(): object {
  const vocab: Record<string, number> = {};
  TEST_MOONSHINE_TOKENS.pieces.forEach((p, i) => (vocab[p] = i));
  for (let i = TEST_MOONSHINE_TOKENS.pieces.length; i < TEST_MOONSHINE_TOKENS.vocab; i++) vocab[`tok${i}`] = i;
  return {
    version: '1.0',
    added_tokens: [0, 1, 2].map((id) => ({ id, content: TEST_MOONSHINE_TOKENS.pieces[id], special: true })),
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Strip', content: ' ', start: 1, stop: 0 },
      ],
    },
    model: { type: 'BPE', vocab, merges: [], byte_fallback: true },
  };
}

export interface TestAsrFolderOptions {
  family: 'whisper' | 'moonshine';
  /** `merged` (decoder_model_merged) or `split` (decoder_model + decoder_with_past_model). */
  layout?: 'merged' | 'split';
  /** File name suffix of a quantized variant, e.g. `_quantized`. */
  variant?: string;
  /** Whisper only: an English-only (.en) model, without language and task tokens. */
  englishOnly?: boolean;
  melBins?: number;
  /** Decoder tables in place of the family's (e.g. a decoder that loops, or one that hears silence). */
  tables?: Seq2SeqTestTables;
  /** Merged over the generation_config.json written (a key set to undefined is left out). */
  generation?: Record<string, unknown>;
  /** The encoder's weights in `encoder_model<variant>.onnx_data` beside it, as exports over 2 GB store them. */
  externalData?: boolean;
}

/** Writes a complete test model folder at `dir` (created). */
export async function writeTestAsrFolder(dir: string, options: TestAsrFolderOptions): Promise<void> {
  const { family, layout = 'merged', variant = '' } = options;
  const shape = TEST_ASR_SHAPE;
  const d = shape.heads * shape.headDim;
  const tables = options.tables ?? (family === 'whisper' ? TEST_WHISPER_TABLES : TEST_MOONSHINE_TABLES);
  await mkdir(join(dir, 'onnx'), { recursive: true });
  const json = (name: string, value: object) => writeFile(join(dir, name), JSON.stringify(value, null, 2));
  if (family === 'whisper') {
    await json('config.json', {
      model_type: 'whisper',
      architectures: ['WhisperForConditionalGeneration'],
      num_mel_bins: options.melBins ?? 80,
      d_model: d,
      decoder_layers: shape.layers,
      decoder_attention_heads: shape.heads,
      max_target_positions: 16,
    });
    await json('generation_config.json', { ...testWhisperGenerationConfig(options.englishOnly), ...options.generation });
    await json('tokenizer.json', testWhisperTokenizer());
    await json('preprocessor_config.json', {
      feature_extractor_type: 'WhisperFeatureExtractor',
      feature_size: options.melBins ?? 80,
      hop_length: 160,
      n_fft: 400,
      sampling_rate: 16000,
      chunk_length: 30,
    });
  } else {
    await json('config.json', {
      model_type: 'moonshine',
      architectures: ['MoonshineForConditionalGeneration'],
      hidden_size: d,
      decoder_num_hidden_layers: shape.layers,
      decoder_num_attention_heads: shape.heads,
      max_position_embeddings: 64,
    });
    await json('generation_config.json', { decoder_start_token_id: 1, eos_token_id: 2, bos_token_id: 1, ...options.generation });
    await json('tokenizer.json', testMoonshineTokenizer());
    await json('preprocessor_config.json', {
      feature_extractor_type: 'Wav2Vec2FeatureExtractor',
      feature_size: 1,
      sampling_rate: 16000,
      do_normalize: false,
    });
  }
  await json('tokenizer_config.json', { model_max_length: 1000000000000 });
  const encoder = `encoder_model${variant}.onnx`;
  if (options.externalData) {
    const { model, data } = writeOnnxModelWithExternalData(
      seq2seqTestEncoderGraph(family, shape, options.melBins ?? 80),
      `${encoder}_data`,
    );
    await writeFile(join(dir, 'onnx', encoder), model);
    await writeFile(join(dir, 'onnx', `${encoder}_data`), data);
  } else await writeFile(join(dir, 'onnx', encoder), seq2seqTestEncoder(family, shape, options.melBins ?? 80));
  if (layout === 'merged')
    await writeFile(join(dir, 'onnx', `decoder_model_merged${variant}.onnx`), seq2seqTestDecoder('merged', shape, tables));
  else {
    await writeFile(join(dir, 'onnx', `decoder_model${variant}.onnx`), seq2seqTestDecoder('first', shape, tables));
    await writeFile(join(dir, 'onnx', `decoder_with_past_model${variant}.onnx`), seq2seqTestDecoder('withPast', shape, tables));
  }
}
