import { OnnxType, writeOnnxModel, type OnnxNode } from '@svc/adapters-runtime';

// Small ONNX models with the exact I/O signatures of Piper (VITS) and Kokoro exports, for tests and
// demos where no real weights can be downloaded. Their output is a sine tone that depends on every
// input, so a test can tell from the audio which tensors were really passed:
//   Piper:  T = input_lengths * HOP * length_scale samples, frequency = BASE + mean(input) * ID_HZ
//           + sid * SPEAKER_HZ, amplitude = noise_scale / 2.
//   Kokoro: T = N * HOP / speed samples, frequency = BASE + mean(input_ids) * ID_HZ + mean(style) * STYLE_HZ.

export const PIPER_TEST_MODEL = { hop: 64, baseHz: 200, idHz: 4, speakerHz: 150 } as const;
export const KOKORO_TEST_MODEL = { hop: 100, baseHz: 150, idHz: 4, styleHz: 400, sampleRate: 24000 } as const;

const F = OnnxType.FLOAT;
const I = OnnxType.INT64;

function tone(
  nodes: OnnxNode[],
  lengthFloat: string,
  freq: string,
  sampleRate: number,
  amplitude: string,
  outputShape: number[],
  outputName: string,
) {
  nodes.push(
    { op: 'Cast', inputs: [lengthFloat], outputs: ['t'], attributes: { to: { int: I } } },
    { op: 'Range', inputs: ['zero_i', 't', 'one_i'], outputs: ['r'] },
    { op: 'Cast', inputs: ['r'], outputs: ['rf'], attributes: { to: { int: F } } },
    { op: 'Mul', inputs: [freq, 'two_pi_over_sr'], outputs: ['omega'] },
    { op: 'Mul', inputs: ['rf', 'omega'], outputs: ['phase'] },
    { op: 'Sin', inputs: ['phase'], outputs: ['sine'] },
    { op: 'Mul', inputs: ['sine', amplitude], outputs: ['wave'] },
    { op: 'Reshape', inputs: ['wave', 'out_shape'], outputs: [outputName] },
  );
  return [
    { name: 'zero_i', type: I, dims: [], values: [0] },
    { name: 'one_i', type: I, dims: [], values: [1] },
    { name: 'two_pi_over_sr', type: F, dims: [], values: [(2 * Math.PI) / sampleRate] },
    { name: 'out_shape', type: I, dims: [outputShape.length], values: outputShape },
  ];
}

/** A Piper-shaped model: input [1,N] int64, input_lengths [1] int64, scales [3] float32, sid [1] when multi-speaker. */
export function piperTestModel(options: { sampleRate: number; multiSpeaker?: boolean; hop?: number }): Uint8Array {
  const m = PIPER_TEST_MODEL;
  const nodes: OnnxNode[] = [
    { op: 'Cast', inputs: ['input_lengths'], outputs: ['len_f'], attributes: { to: { int: F } } },
    { op: 'ReduceMean', inputs: ['len_f'], outputs: ['n'], attributes: { keepdims: { int: 0 } } },
    { op: 'Gather', inputs: ['scales', 'idx0'], outputs: ['noise_scale'], attributes: { axis: { int: 0 } } },
    { op: 'Gather', inputs: ['scales', 'idx1'], outputs: ['length_scale'], attributes: { axis: { int: 0 } } },
    { op: 'Mul', inputs: ['n', 'hop'], outputs: ['n_hop'] },
    { op: 'Mul', inputs: ['n_hop', 'length_scale'], outputs: ['len_out'] },
    { op: 'Mul', inputs: ['noise_scale', 'half'], outputs: ['amp'] },
    { op: 'Cast', inputs: ['input'], outputs: ['ids_f'], attributes: { to: { int: F } } },
    { op: 'ReduceMean', inputs: ['ids_f'], outputs: ['mean_id'], attributes: { keepdims: { int: 0 } } },
    { op: 'Mul', inputs: ['mean_id', 'id_hz'], outputs: ['id_part'] },
    { op: 'Add', inputs: ['id_part', 'base_hz'], outputs: options.multiSpeaker ? ['f0'] : ['freq'] },
  ];
  if (options.multiSpeaker) {
    nodes.push(
      { op: 'Cast', inputs: ['sid'], outputs: ['sid_f'], attributes: { to: { int: F } } },
      { op: 'ReduceMean', inputs: ['sid_f'], outputs: ['sid_s'], attributes: { keepdims: { int: 0 } } },
      { op: 'Mul', inputs: ['sid_s', 'speaker_hz'], outputs: ['sid_part'] },
      { op: 'Add', inputs: ['f0', 'sid_part'], outputs: ['freq'] },
    );
  }
  const toneInits = tone(nodes, 'len_out', 'freq', options.sampleRate, 'amp', [1, 1, -1], 'output');
  return writeOnnxModel({
    nodes,
    inputs: [
      { name: 'input', type: I, shape: [1, 'phonemes'] },
      { name: 'input_lengths', type: I, shape: [1] },
      { name: 'scales', type: F, shape: [3] },
      ...(options.multiSpeaker ? [{ name: 'sid', type: I, shape: [1] }] : []),
    ],
    outputs: [{ name: 'output', type: F, shape: [1, 1, 'time'] }],
    initializers: [
      ...toneInits,
      { name: 'idx0', type: I, dims: [], values: [0] },
      { name: 'idx1', type: I, dims: [], values: [1] },
      { name: 'hop', type: F, dims: [], values: [options.hop ?? m.hop] },
      { name: 'half', type: F, dims: [], values: [0.5] },
      { name: 'id_hz', type: F, dims: [], values: [m.idHz] },
      { name: 'base_hz', type: F, dims: [], values: [m.baseHz] },
      ...(options.multiSpeaker ? [{ name: 'speaker_hz', type: F, dims: [], values: [m.speakerHz] }] : []),
    ],
  });
}

/**
 * A Kokoro-shaped model: input_ids [1,N] int64, style [1,256] float32, speed [1] float32 -> waveform [1,T]
 * at 24 kHz. With `durations`, also a `durations` output [1,N] (token i lasts input_ids[i] + 1 frames),
 * the per-token durations some exports give, for word timings.
 */
export function kokoroTestModel(options: { durations?: boolean; hop?: number } = {}): Uint8Array {
  const m = KOKORO_TEST_MODEL;
  const nodes: OnnxNode[] = [
    { op: 'Shape', inputs: ['input_ids'], outputs: ['shape'] },
    { op: 'Gather', inputs: ['shape', 'idx1'], outputs: ['n'], attributes: { axis: { int: 0 } } },
    { op: 'Cast', inputs: ['n'], outputs: ['n_f'], attributes: { to: { int: F } } },
    { op: 'ReduceMean', inputs: ['speed'], outputs: ['speed_s'], attributes: { keepdims: { int: 0 } } },
    { op: 'Mul', inputs: ['n_f', 'hop'], outputs: ['n_hop'] },
    { op: 'Div', inputs: ['n_hop', 'speed_s'], outputs: ['len_out'] },
    { op: 'Cast', inputs: ['input_ids'], outputs: ['ids_f'], attributes: { to: { int: F } } },
    { op: 'ReduceMean', inputs: ['ids_f'], outputs: ['mean_id'], attributes: { keepdims: { int: 0 } } },
    { op: 'Mul', inputs: ['mean_id', 'id_hz'], outputs: ['id_part'] },
    { op: 'ReduceMean', inputs: ['style'], outputs: ['mean_style'], attributes: { keepdims: { int: 0 } } },
    { op: 'Mul', inputs: ['mean_style', 'style_hz'], outputs: ['style_part'] },
    { op: 'Add', inputs: ['id_part', 'style_part'], outputs: ['f0'] },
    { op: 'Add', inputs: ['f0', 'base_hz'], outputs: ['freq'] },
  ];
  if (options.durations) nodes.push({ op: 'Add', inputs: ['ids_f', 'one_f'], outputs: ['durations'] });
  const toneInits = tone(nodes, 'len_out', 'freq', m.sampleRate, 'amp', [1, -1], 'waveform');
  const graph = writeOnnxModel({
    nodes,
    inputs: [
      { name: 'input_ids', type: I, shape: [1, 'tokens'] },
      { name: 'style', type: F, shape: [1, 256] },
      { name: 'speed', type: F, shape: [1] },
    ],
    outputs: [
      { name: 'waveform', type: F, shape: [1, 'time'] },
      ...(options.durations ? [{ name: 'durations', type: F, shape: [1, 'tokens'] }] : []),
    ],
    initializers: [
      ...toneInits,
      { name: 'idx1', type: I, dims: [], values: [1] },
      ...(options.durations ? [{ name: 'one_f', type: F, dims: [], values: [1] }] : []),
      { name: 'hop', type: F, dims: [], values: [options.hop ?? m.hop] },
      { name: 'amp', type: F, dims: [], values: [0.4] },
      { name: 'id_hz', type: F, dims: [], values: [m.idHz] },
      { name: 'style_hz', type: F, dims: [], values: [m.styleHz] },
      { name: 'base_hz', type: F, dims: [], values: [m.baseHz] },
    ],
  });
  return graph;
}
