import { OnnxType, writeOnnxModel } from '@svc/adapters-runtime';

// A small ONNX model with the exact I/O signature of Smart Turn v3's export (no weights can be
// downloaded here): `input_features` [1, 80, 800] in, one probability [1, 1] out. Its answer is a
// known function of its input: sigmoid(SCALE * (mean of the last LAST_FRAMES frames' features -
// OFFSET)). Speech at the end of the 8 s window (where the turn's end must be) gives a high value;
// silence there, or features laid out the other way round, a low one. An offset far outside the
// features' range (-10 or 10) makes a model that always says finished, or never.

export const SMART_TURN_TEST_MODEL = { lastFrames: 60, scale: 20, offset: 0.2 } as const;

const F = OnnxType.FLOAT;
const I = OnnxType.INT64;

/** A Smart Turn-shaped model: input_features [1, 80, 800] float32 -> `logits` [1, 1], a sigmoid probability. */
export function smartTurnTestModel(options: { offset?: number } = {}): Uint8Array {
  const m = { ...SMART_TURN_TEST_MODEL, ...options };
  return writeOnnxModel({
    nodes: [
      { op: 'Slice', inputs: ['input_features', 'starts', 'ends', 'axes'], outputs: ['tail'] },
      { op: 'ReduceMean', inputs: ['tail'], outputs: ['tail_mean'], attributes: { keepdims: { int: 0 } } },
      { op: 'Sub', inputs: ['tail_mean', 'offset'], outputs: ['centred'] },
      { op: 'Mul', inputs: ['centred', 'scale'], outputs: ['scaled'] },
      { op: 'Sigmoid', inputs: ['scaled'], outputs: ['probability'] },
      { op: 'Reshape', inputs: ['probability', 'out_shape'], outputs: ['logits'] },
    ],
    inputs: [{ name: 'input_features', type: F, shape: [1, 80, 800] }],
    outputs: [{ name: 'logits', type: F, shape: [1, 1] }],
    initializers: [
      { name: 'starts', type: I, dims: [1], values: [800 - m.lastFrames] },
      { name: 'ends', type: I, dims: [1], values: [800] },
      { name: 'axes', type: I, dims: [1], values: [2] },
      { name: 'offset', type: F, dims: [], values: [m.offset] },
      { name: 'scale', type: F, dims: [], values: [m.scale] },
      { name: 'out_shape', type: I, dims: [2], values: [1, 1] },
    ],
  });
}
