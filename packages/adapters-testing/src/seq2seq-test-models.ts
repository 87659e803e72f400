import { OnnxType, writeOnnxModel, type OnnxGraph, type OnnxInitializer, type OnnxNode, type OnnxValue } from '@svc/adapters-runtime';

// Small ONNX models with the exact I/O signatures of the transformers.js Whisper and Moonshine
// exports (no weights can be downloaded here). Their outputs are a known function of their inputs:
//   encoder: last_hidden_state [1, T, D] filled with m = mean(input_features | input_values).
//   decoder: logits[s] = next[input_ids[s]] + atPosition[past + s] + m * encoderMean + useCache * cacheBranch,
//            where `past` is the length of the decoder cache fed in (so a loop that loses its cache
//            or mis-sets use_cache_branch decodes something else), and present.N.decoder.* is the
//            cache fed in with this step's ids appended (as floats).

const F = OnnxType.FLOAT;
const I = OnnxType.INT64;

export interface Seq2SeqTestTables {
  vocab: number;
  /** [from token, to token, score]: the scores of the row after `from`. */
  next: [number, number, number][];
  /** [sequence position, token, score] added to the row computed at that position. */
  atPosition?: [number, number, number][];
  /** [token, weight]: weight * mean(encoder output) added to every row. */
  encoderMean?: [number, number][];
  /** [token, weight]: added to every row of a step run with the cache (use_cache_branch true). */
  cacheBranch?: [number, number][];
  maxPositions: number;
}

export interface Seq2SeqTestShape {
  layers: number;
  heads: number;
  headDim: number;
  /** Encoder output frames. */
  frames: number;
}

function matrix(name: string, rows: number, cols: number, cells: [number, number, number][]): OnnxInitializer {
  const values = new Array<number>(rows * cols).fill(0);
  for (const [r, c, v] of cells) values[r * cols + c] = v;
  return { name, type: F, dims: [rows, cols], values };
}

function vector(name: string, size: number, cells: [number, number][] = []): OnnxInitializer {
  const values = new Array<number>(size).fill(0);
  for (const [i, v] of cells) values[i] = v;
  return { name, type: F, dims: [size], values };
}

const scalarI = (name: string, v: number): OnnxInitializer => ({ name, type: I, dims: [], values: [v] });
const ints = (name: string, values: number[]): OnnxInitializer => ({ name, type: I, dims: [values.length], values });

/**
 * Moonshine's encoder starts with three convolutions over the raw samples (kernels 127, 7, 3,
 * strides 64, 3, 2, no padding; UsefulSensors' model and its ONNX exports): fewer than
 * 127 + 64 * (7 - 1 + 3 * (3 - 1)) = 895 samples (56 ms) leaves nothing for the last one and
 * onnxruntime fails. The test encoder runs the same three convolutions (zero weights, so they add
 * nothing to its output) and so rejects what the real one rejects.
 */
export const MOONSHINE_CONV_STEM = [
  { kernel: 127, stride: 64 },
  { kernel: 7, stride: 3 },
  { kernel: 3, stride: 2 },
] as const;

/** The encoder graph: `input_features` [1, melBins, 3000] (Whisper) or `input_values` [1, samples] (Moonshine). */
export function seq2seqTestEncoderGraph(family: 'whisper' | 'moonshine', shape: Seq2SeqTestShape, melBins = 80): OnnxGraph {
  const d = shape.heads * shape.headDim;
  const input: OnnxValue =
    family === 'whisper'
      ? { name: 'input_features', type: F, shape: [1, melBins, 3000] }
      : { name: 'input_values', type: F, shape: [1, 'samples'] };
  const nodes: OnnxNode[] = [
    {
      op: 'ReduceMean',
      inputs: [input.name],
      outputs: [family === 'whisper' ? 'm' : 'm0'],
      attributes: { axes: { ints: family === 'whisper' ? [0, 1, 2] : [0, 1] }, keepdims: { int: 0 } },
    },
  ];
  const initializers: OnnxInitializer[] = [ints('out_shape', [1, shape.frames, d])];
  if (family === 'moonshine') {
    nodes.push({ op: 'Reshape', inputs: [input.name, 'stem_in_shape'], outputs: ['stem0'] });
    initializers.push(ints('stem_in_shape', [1, 1, -1]));
    MOONSHINE_CONV_STEM.forEach(({ kernel, stride }, i) => {
      nodes.push({
        op: 'Conv',
        inputs: [`stem${i}`, `stem_w${i}`],
        outputs: [`stem${i + 1}`],
        attributes: { kernel_shape: { ints: [kernel] }, strides: { ints: [stride] } },
      });
      initializers.push({ name: `stem_w${i}`, type: F, dims: [1, 1, kernel], values: new Array<number>(kernel).fill(0) });
    });
    nodes.push(
      { op: 'ReduceMean', inputs: ['stem3'], outputs: ['stem_mean'], attributes: { keepdims: { int: 0 } } },
      { op: 'Add', inputs: ['m0', 'stem_mean'], outputs: ['m'] },
    );
  }
  // A weight (all ones: the output stays m) so the graph has float weights like a real encoder.
  nodes.push(
    { op: 'Expand', inputs: ['m', 'out_shape'], outputs: ['expanded'] },
    { op: 'Mul', inputs: ['expanded', 'out_weight'], outputs: ['last_hidden_state'] },
  );
  initializers.push({ name: 'out_weight', type: F, dims: [d], values: new Array<number>(d).fill(1) });
  return { nodes, inputs: [input], outputs: [{ name: 'last_hidden_state', type: F, shape: [1, shape.frames, d] }], initializers };
}

/** The encoder as an ONNX file. */
export function seq2seqTestEncoder(family: 'whisper' | 'moonshine', shape: Seq2SeqTestShape, melBins = 80): Uint8Array {
  return writeOnnxModel(seq2seqTestEncoderGraph(family, shape, melBins));
}

/**
 * A decoder in one of the three transformers.js layouts: `merged` (decoder_model_merged: every
 * input incl. use_cache_branch), `first` (decoder_model: no cache in, cache out) or `withPast`
 * (decoder_with_past_model: no encoder_hidden_states, cache in, only the decoder cache out).
 */
export function seq2seqTestDecoder(
  layout: 'merged' | 'first' | 'withPast',
  shape: Seq2SeqTestShape,
  tables: Seq2SeqTestTables,
): Uint8Array {
  const { layers, heads, headDim } = shape;
  const V = tables.vocab;
  const hasPast = layout !== 'first';
  const hasEncoderInput = layout !== 'withPast';
  const nodes: OnnxNode[] = [
    { op: 'Gather', inputs: ['next_table', 'input_ids'], outputs: ['tok'], attributes: { axis: { int: 0 } } },
    { op: 'Shape', inputs: ['input_ids'], outputs: ['ids_shape'] },
    { op: 'Gather', inputs: ['ids_shape', 'one'], outputs: ['seq'], attributes: { axis: { int: 0 } } },
  ];
  if (hasPast) {
    nodes.push(
      { op: 'Shape', inputs: ['past_key_values.0.decoder.key'], outputs: ['past_shape'] },
      { op: 'Gather', inputs: ['past_shape', 'two'], outputs: ['past'], attributes: { axis: { int: 0 } } },
    );
  } else nodes.push({ op: 'Identity', inputs: ['zero'], outputs: ['past'] });
  nodes.push(
    { op: 'Add', inputs: ['past', 'seq'], outputs: ['end'] },
    { op: 'Range', inputs: ['past', 'end', 'one'], outputs: ['positions'] },
    { op: 'Gather', inputs: ['position_table', 'positions'], outputs: ['pos'], attributes: { axis: { int: 0 } } },
    { op: 'Add', inputs: ['tok', 'pos'], outputs: ['l1'] },
  );
  // m: the encoder output's mean, from encoder_hidden_states or (with past only) the cross-attention cache.
  const meanOf = hasEncoderInput ? 'encoder_hidden_states' : 'past_key_values.0.encoder.key';
  nodes.push(
    { op: 'ReduceMean', inputs: [meanOf], outputs: ['m'], attributes: { keepdims: { int: 0 } } },
    { op: 'Mul', inputs: ['m', 'encoder_table'], outputs: ['enc_part'] },
    { op: 'Add', inputs: ['l1', 'enc_part'], outputs: ['l2'] },
  );
  if (layout === 'merged') nodes.push({ op: 'Cast', inputs: ['use_cache_branch'], outputs: ['u'], attributes: { to: { int: F } } });
  else nodes.push({ op: 'Identity', inputs: [layout === 'withPast' ? 'one_f' : 'zero_f'], outputs: ['u'] });
  nodes.push(
    { op: 'Mul', inputs: ['u', 'cache_table'], outputs: ['cache_part'] },
    { op: 'Add', inputs: ['l2', 'cache_part'], outputs: ['logits'] },
  );
  // This step's decoder keys/values: the ids as floats, [1, heads, S, headDim].
  nodes.push(
    { op: 'Cast', inputs: ['input_ids'], outputs: ['ids_f'], attributes: { to: { int: F } } },
    { op: 'Reshape', inputs: ['ids_f', 'kv_step_shape'], outputs: ['ids_4d'] },
    { op: 'Expand', inputs: ['ids_4d', 'kv_expand'], outputs: ['new_kv'] },
  );
  if (hasEncoderInput) {
    nodes.push(
      { op: 'Reshape', inputs: ['encoder_hidden_states', 'enc_heads_shape'], outputs: ['enc_heads'] },
      { op: 'Transpose', inputs: ['enc_heads'], outputs: ['enc_kv'], attributes: { perm: { ints: [0, 2, 1, 3] } } },
    );
  }
  const inputs: OnnxValue[] = [{ name: 'input_ids', type: I, shape: [1, 'decoder_sequence_length'] }];
  if (hasEncoderInput) inputs.push({ name: 'encoder_hidden_states', type: F, shape: [1, 'encoder_sequence_length', heads * headDim] });
  const outputs: OnnxValue[] = [{ name: 'logits', type: F, shape: [1, 'decoder_sequence_length', V] }];
  for (let i = 0; i < layers; i++) {
    for (const part of ['decoder.key', 'decoder.value', 'encoder.key', 'encoder.value']) {
      if (hasPast)
        inputs.push({
          name: `past_key_values.${i}.${part}`,
          type: F,
          shape: [1, heads, part.startsWith('decoder') ? 'past_decoder_sequence_length' : 'encoder_sequence_length_out', headDim],
        });
      const isDecoder = part.startsWith('decoder');
      if (!isDecoder && layout === 'withPast') continue;
      const out = `present.${i}.${part}`;
      outputs.push({
        name: out,
        type: F,
        shape: [1, heads, isDecoder ? 'present_sequence_length' : 'encoder_sequence_length_out', headDim],
      });
      if (isDecoder)
        nodes.push(
          hasPast
            ? { op: 'Concat', inputs: [`past_key_values.${i}.${part}`, 'new_kv'], outputs: [out], attributes: { axis: { int: 2 } } }
            : { op: 'Identity', inputs: ['new_kv'], outputs: [out] },
        );
      else nodes.push({ op: 'Identity', inputs: ['enc_kv'], outputs: [out] });
    }
  }
  if (layout === 'merged') inputs.push({ name: 'use_cache_branch', type: OnnxType.BOOL, shape: [1] });
  const used = new Set(nodes.flatMap((n) => n.inputs));
  return writeOnnxModel({
    nodes,
    inputs,
    outputs,
    // Only the constants this layout's nodes use (onnxruntime warns about the others).
    initializers: [
      matrix('next_table', V, V, tables.next),
      matrix('position_table', tables.maxPositions, V, tables.atPosition ?? []),
      vector('encoder_table', V, tables.encoderMean),
      vector('cache_table', V, tables.cacheBranch),
      scalarI('zero', 0),
      scalarI('one', 1),
      scalarI('two', 2),
      { name: 'zero_f', type: F, dims: [1], values: [0] },
      { name: 'one_f', type: F, dims: [1], values: [1] },
      ints('kv_step_shape', [1, 1, -1, 1]),
      ints('kv_expand', [1, heads, 1, headDim]),
      ints('enc_heads_shape', [1, -1, heads, headDim]),
    ].filter((init) => used.has(init.name)),
  });
}
