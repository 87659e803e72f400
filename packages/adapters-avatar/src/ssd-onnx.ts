import type { InferenceSession } from 'onnxruntime-node';
import { disableOnnxTelemetry, OnnxType, writeOnnxModel, type OnnxInitializer, type OnnxNode } from '@svc/adapters-runtime';
import type { RgbImage } from './rgb-image.js';

/**
 * face-api's SSD MobileNet v1 face detector on onnxruntime instead of tfjs's WASM backend: the same
 * weights (read from face-api's loaded network once, then released there), the same arithmetic
 * (batch norms folded into the depthwise filters, TensorFlow's "same" padding), the same box
 * decoding and non-max suppression, so the same faces. Why: onnxruntime's native kernels run the
 * 512x512 pass several times faster than the WASM backend on one core, and that pass is most of what
 * a new photo waits for before its first video fragment (docs/video.md, Speed). Memory: the weights,
 * their prepacked copy and one activation arena, bounded once it has run, against the WebAssembly
 * heap face-api's pass grew and never gave back.
 */

/** The network input: face-api pads the photo to a square and resizes it to 512x512. */
export const SSD_INPUT_SIZE = 512;
/** face-api's batch-norm epsilon (float32 0.001). */
const EPSILON = 0.0010000000474974513;
/** Box overlap above which the lower-scored box is dropped (face-api's SSD value). */
const IOU_THRESHOLD = 0.5;

export interface SsdDetection {
  score: number;
  /** In the input image's pixels. */
  box: { x: number; y: number; width: number; height: number };
}

interface Tensorish {
  shape: number[];
  dataSync(): Float32Array | Int32Array | Uint8Array;
  dispose(): void;
}
interface ConvParams {
  filters: Tensorish;
  batch_norm_offset: Tensorish;
}
interface DepthwiseParams {
  filters: Tensorish;
  batch_norm_scale: Tensorish;
  batch_norm_offset: Tensorish;
  batch_norm_mean: Tensorish;
  batch_norm_variance: Tensorish;
}
interface PredictorParams {
  box_encoding_predictor: { filters: Tensorish; bias: Tensorish };
  class_predictor: { filters: Tensorish; bias: Tensorish };
}
interface SsdParams {
  mobilenetv1: Record<string, ConvParams | { depthwise_conv: DepthwiseParams; pointwise_conv: ConvParams }>;
  prediction_layer: Record<string, ConvParams | PredictorParams>;
  output_layer: { extra_dim: Tensorish };
}

/** MobileNet layers whose depthwise convolution has stride 2. */
const STRIDE_2 = new Set([2, 4, 6, 12]);

export class OnnxSsdDetector {
  private constructor(
    private readonly session: InferenceSession,
    private readonly ort: typeof import('onnxruntime-node'),
    /** Anchors [ymin, xmin, ymax, xmax] per box, in the padded square's unit coordinates. */
    private readonly anchors: Float32Array,
  ) {}

  /**
   * Builds the network from face-api's loaded SSD weights (`net.params`), then disposes those
   * tensors: face-api's own SSD pass cannot run afterwards (keepTfjsWeights keeps it, for tests).
   */
  static async create(params: unknown, options: { threads?: number; keepTfjsWeights?: boolean } = {}): Promise<OnnxSsdDetector> {
    const ort = await import('onnxruntime-node');
    const p = params as SsdParams;
    const model = buildGraph(p);
    const anchors = Float32Array.from(p.output_layer.extra_dim.dataSync());
    disableOnnxTelemetry();
    const session = await ort.InferenceSession.create(model, {
      intraOpNumThreads: options.threads ?? 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Without a precomputed allocation pattern the session's arena settled lower over repeated
      // photos, for the same CPU.
      enableMemPattern: false,
    });
    if (!options.keepTfjsWeights) disposeAll(p);
    return new OnnxSsdDetector(session, ort, anchors);
  }

  /** Faces scoring above `minScore`, best first, at most `maxResults` (face-api's locateFaces). */
  async locate(image: RgbImage, minScore: number, maxResults: number): Promise<SsdDetection[]> {
    const side = Math.max(image.width, image.height);
    const input = new this.ort.Tensor('float32', networkInput(image), [1, 3, SSD_INPUT_SIZE, SSD_INPUT_SIZE]);
    const out = await this.session.run({ input });
    const encodings = out.boxes!.data as Float32Array;
    const logits = out.classes!.data as Float32Array;
    const count = this.anchors.length / 4;
    const boxes = new Float32Array(count * 4);
    const scores = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      decodeBox(this.anchors, encodings, i, boxes);
      scores[i] = 1 / (1 + Math.exp(-logits[i * 3 + 1]!));
    }
    // The photo fills the top-left of the padded square: coordinates of the square, scaled to the
    // photo. face-api scales by the photo's size at 512 px rounded to whole pixels; so does this.
    const scaleY = SSD_INPUT_SIZE / Math.round((image.height * SSD_INPUT_SIZE) / side);
    const scaleX = SSD_INPUT_SIZE / Math.round((image.width * SSD_INPUT_SIZE) / side);
    return suppress(boxes, scores, maxResults, minScore).map((i) => {
      const top = Math.max(0, boxes[i * 4]!) * scaleY;
      const bottom = Math.min(1, boxes[i * 4 + 2]!) * scaleY;
      const left = Math.max(0, boxes[i * 4 + 1]!) * scaleX;
      const right = Math.min(1, boxes[i * 4 + 3]!) * scaleX;
      return {
        score: scores[i]!,
        box: { x: left * image.width, y: top * image.height, width: (right - left) * image.width, height: (bottom - top) * image.height },
      };
    });
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/**
 * The photo as the network sees it, NCHW: padded to a square with black at the bottom or right,
 * resized to 512x512 bilinearly as tfjs does it (no corner alignment, no half-pixel centres: the
 * source of output pixel o is o * in/out), scaled from [0, 255] to [-1, 1].
 */
export function networkInput(image: RgbImage): Float32Array {
  const n = SSD_INPUT_SIZE;
  const side = Math.max(image.width, image.height);
  const ratio = side / n;
  const out = new Float32Array(3 * n * n);
  const { data, width, height } = image;
  const at = (y: number, x: number, c: number): number => (y < height && x < width ? data[(y * width + x) * 3 + c]! : 0);
  for (let oy = 0; oy < n; oy++) {
    const sy = oy * ratio;
    const y0 = Math.floor(sy);
    const y1 = Math.min(y0 + 1, side - 1);
    const dy = sy - y0;
    for (let ox = 0; ox < n; ox++) {
      const sx = ox * ratio;
      const x0 = Math.floor(sx);
      const x1 = Math.min(x0 + 1, side - 1);
      const dx = sx - x0;
      for (let c = 0; c < 3; c++) {
        const top = at(y0, x0, c) + (at(y0, x1, c) - at(y0, x0, c)) * dx;
        const bottom = at(y1, x0, c) + (at(y1, x1, c) - at(y1, x0, c)) * dx;
        out[c * n * n + oy * n + ox] = (top + (bottom - top) * dy) / 127.5 - 1;
      }
    }
  }
  return out;
}

/** SSD's box coding (scales 10 and 5 as trained): the encoding of box i against anchor i, as [ymin, xmin, ymax, xmax]. */
function decodeBox(anchors: Float32Array, encodings: Float32Array, i: number, out: Float32Array): void {
  const a = i * 4;
  const height = anchors[a + 2]! - anchors[a]!;
  const width = anchors[a + 3]! - anchors[a + 1]!;
  const centerY = anchors[a]! + height / 2 + (encodings[a]! / 10) * height;
  const centerX = anchors[a + 1]! + width / 2 + (encodings[a + 1]! / 10) * width;
  const halfHeight = (Math.exp(encodings[a + 2]! / 5) * height) / 2;
  const halfWidth = (Math.exp(encodings[a + 3]! / 5) * width) / 2;
  out[a] = centerY - halfHeight;
  out[a + 1] = centerX - halfWidth;
  out[a + 2] = centerY + halfHeight;
  out[a + 3] = centerX + halfWidth;
}

/**
 * Greedy non-max suppression as face-api's SSD does it: candidates above the score threshold, best
 * first; each is kept unless a kept box overlaps it by more than IOU_THRESHOLD.
 */
function suppress(boxes: Float32Array, scores: Float32Array, maxResults: number, minScore: number): number[] {
  const candidates: number[] = [];
  for (let i = 0; i < scores.length; i++) if (scores[i]! > minScore) candidates.push(i);
  candidates.sort((a, b) => scores[b]! - scores[a]!);
  const kept: number[] = [];
  for (const c of candidates) {
    if (kept.length >= Math.min(maxResults, scores.length)) break;
    if (kept.every((k) => overlap(boxes, c, k) <= IOU_THRESHOLD)) kept.push(c);
  }
  return kept;
}

function overlap(boxes: Float32Array, i: number, j: number): number {
  const [yi0, xi0, yi1, xi1] = corners(boxes, i);
  const [yj0, xj0, yj1, xj1] = corners(boxes, j);
  const areaI = (yi1 - yi0) * (xi1 - xi0);
  const areaJ = (yj1 - yj0) * (xj1 - xj0);
  if (areaI <= 0 || areaJ <= 0) return 0;
  const shared = Math.max(Math.min(yi1, yj1) - Math.max(yi0, yj0), 0) * Math.max(Math.min(xi1, xj1) - Math.max(xi0, xj0), 0);
  return shared / (areaI + areaJ - shared);
}

const corners = (b: Float32Array, i: number): [number, number, number, number] => [
  Math.min(b[i * 4]!, b[i * 4 + 2]!),
  Math.min(b[i * 4 + 1]!, b[i * 4 + 3]!),
  Math.max(b[i * 4]!, b[i * 4 + 2]!),
  Math.max(b[i * 4 + 1]!, b[i * 4 + 3]!),
];

/**
 * The ONNX graph: input [1, 3, 512, 512] -> `boxes` [1, 5118, 4] (encodings) and `classes`
 * [1, 5118, 3] (logits), ordered like face-api's tensors (feature map, then row, column, anchor).
 */
function buildGraph(p: SsdParams): Uint8Array {
  const nodes: OnnxNode[] = [];
  const initializers: OnnxInitializer[] = [];
  let serial = 0;
  const constant = (dims: number[], values: Float32Array | number[], type: number = OnnxType.FLOAT): string => {
    const name = `k${serial++}`;
    initializers.push({ name, type, dims, values });
    return name;
  };
  const zero = constant([], [0]);
  const six = constant([], [6]);

  /** A convolution with TensorFlow's "same" padding (the extra row and column at the bottom and right). */
  const conv = (
    x: string,
    size: number,
    weight: { filters: Float32Array; dims: number[] },
    bias: Float32Array,
    stride: number,
    group: number,
    relu6: boolean,
  ): { name: string; size: number } => {
    const kernel = weight.dims[2]!;
    const out = Math.ceil(size / stride);
    const pad = Math.max((out - 1) * stride + kernel - size, 0);
    const before = Math.floor(pad / 2);
    const y = `t${serial++}`;
    nodes.push({
      op: 'Conv',
      inputs: [x, constant(weight.dims, weight.filters), constant([bias.length], bias)],
      outputs: [y],
      attributes: {
        kernel_shape: { ints: [kernel, kernel] },
        strides: { ints: [stride, stride] },
        pads: { ints: [before, before, pad - before, pad - before] },
        group: { int: group },
      },
    });
    if (!relu6) return { name: y, size: out };
    const clipped = `t${serial++}`;
    nodes.push({ op: 'Clip', inputs: [y, zero, six], outputs: [clipped] });
    return { name: clipped, size: out };
  };
  const plain = (c: ConvParams) => ({ weight: toOnnxFilters(c.filters), bias: floats(c.batch_norm_offset) });

  let x = { name: 'input', size: SSD_INPUT_SIZE };
  const c0 = plain(p.mobilenetv1.conv_0 as ConvParams);
  x = conv(x.name, x.size, c0.weight, c0.bias, 2, 1, true);
  let conv11 = x;
  for (let i = 1; i <= 13; i++) {
    const pair = p.mobilenetv1[`conv_${i}`] as { depthwise_conv: DepthwiseParams; pointwise_conv: ConvParams };
    const dw = foldedDepthwise(pair.depthwise_conv);
    x = conv(x.name, x.size, dw.weight, dw.bias, STRIDE_2.has(i) ? 2 : 1, dw.bias.length, true);
    const pw = plain(pair.pointwise_conv);
    x = conv(x.name, x.size, pw.weight, pw.bias, 1, 1, true);
    if (i === 11) conv11 = x;
  }
  const features = [conv11, x];
  let extra = x;
  for (let i = 0; i <= 7; i++) {
    const c = plain(p.prediction_layer[`conv_${i}`] as ConvParams);
    extra = conv(extra.name, extra.size, c.weight, c.bias, i % 2 === 1 ? 2 : 1, 1, true);
    if (i % 2 === 1) features.push(extra);
  }
  const reshaped = (name: string, per: number): string => {
    // NCHW -> NHWC, then [1, cells * anchors, per]: face-api's order.
    const nhwc = `t${serial++}`;
    nodes.push({ op: 'Transpose', inputs: [name], outputs: [nhwc], attributes: { perm: { ints: [0, 2, 3, 1] } } });
    const out = `t${serial++}`;
    nodes.push({ op: 'Reshape', inputs: [nhwc, constant([3], [1, -1, per], OnnxType.INT64)], outputs: [out] });
    return out;
  };
  const boxes: string[] = [];
  const classes: string[] = [];
  features.forEach((f, k) => {
    const predictor = p.prediction_layer[`box_predictor_${k}`] as PredictorParams;
    const box = conv(
      f.name,
      f.size,
      toOnnxFilters(predictor.box_encoding_predictor.filters),
      floats(predictor.box_encoding_predictor.bias),
      1,
      1,
      false,
    );
    const cls = conv(f.name, f.size, toOnnxFilters(predictor.class_predictor.filters), floats(predictor.class_predictor.bias), 1, 1, false);
    boxes.push(reshaped(box.name, 4));
    classes.push(reshaped(cls.name, 3));
  });
  nodes.push({ op: 'Concat', inputs: boxes, outputs: ['boxes'], attributes: { axis: { int: 1 } } });
  nodes.push({ op: 'Concat', inputs: classes, outputs: ['classes'], attributes: { axis: { int: 1 } } });
  return writeOnnxModel({
    nodes,
    initializers,
    inputs: [{ name: 'input', type: OnnxType.FLOAT, shape: [1, 3, SSD_INPUT_SIZE, SSD_INPUT_SIZE] }],
    outputs: [
      { name: 'boxes', type: OnnxType.FLOAT, shape: [1, 5118, 4] },
      { name: 'classes', type: OnnxType.FLOAT, shape: [1, 5118, 3] },
    ],
    opset: 13,
  });
}

const floats = (t: Tensorish): Float32Array => Float32Array.from(t.dataSync());

/** TensorFlow's conv filters [kh, kw, in, out] as ONNX's [out, in, kh, kw]. */
function toOnnxFilters(t: Tensorish): { filters: Float32Array; dims: number[] } {
  const [kh, kw, cin, cout] = t.shape as [number, number, number, number];
  const src = t.dataSync();
  const dst = new Float32Array(src.length);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < cin; i++)
        for (let o = 0; o < cout; o++) dst[((o * cin + i) * kh + y) * kw + x] = src[((y * kw + x) * cin + i) * cout + o]!;
  return { filters: dst, dims: [cout, cin, kh, kw] };
}

/** A depthwise convolution [kh, kw, C, 1] followed by batch norm, as one grouped convolution [C, 1, kh, kw] with a bias. */
function foldedDepthwise(p: DepthwiseParams): { weight: { filters: Float32Array; dims: number[] }; bias: Float32Array } {
  const [kh, kw, channels] = p.filters.shape as [number, number, number, number];
  const src = p.filters.dataSync();
  const [scale, offset, mean, variance] = [p.batch_norm_scale, p.batch_norm_offset, p.batch_norm_mean, p.batch_norm_variance].map(
    floats,
  ) as [Float32Array, Float32Array, Float32Array, Float32Array];
  const filters = new Float32Array(src.length);
  const bias = new Float32Array(channels);
  for (let c = 0; c < channels; c++) {
    const factor = scale[c]! / Math.sqrt(variance[c]! + EPSILON);
    bias[c] = offset[c]! - mean[c]! * factor;
    for (let y = 0; y < kh; y++) for (let x = 0; x < kw; x++) filters[(c * kh + y) * kw + x] = src[(y * kw + x) * channels + c]! * factor;
  }
  return { weight: { filters, dims: [channels, 1, kh, kw] }, bias };
}

/** Frees face-api's copies of the weights (the ONNX session holds its own). */
function disposeAll(value: unknown): void {
  if (!value || typeof value !== 'object') return;
  if (typeof (value as Tensorish).dispose === 'function' && Array.isArray((value as Tensorish).shape)) {
    (value as Tensorish).dispose();
    return;
  }
  for (const child of Object.values(value)) disposeAll(child);
}
