import type { TfTensor3D } from './face-api-runtime.js';

/**
 * A memory-lean forward pass for face-api's SSD MobileNet v1 face detector: the same weights and
 * the same arithmetic, with each layer's input released as soon as its output exists.
 *
 * Why: face-api runs the whole network inside one tf.tidy(), so every activation of the 512x512
 * pass (27 layers, about 150 MB of float32) is alive at once until the end. On the WASM backend
 * that peak becomes the WebAssembly heap, which never shrinks: the detector thread held ~250 MB
 * after one photo. Released layer by layer, the peak is the largest layer's input and output
 * (~25 MB). The batch norms are folded into the depthwise filters once, and bias + ReLU6 run fused
 * with each convolution (one pass over memory instead of three).
 *
 * Installed on face-api's own network object (its `forwardInput`), so face-api's box decoding,
 * non-max suppression and landmark steps are unchanged; the detections are identical to face-api's
 * (tested on its sample photos).
 */

/** The part of tfjs this pass uses (the tfjs the detector already loaded). */
export interface LeanTf {
  tidy<T>(fn: () => T): T;
  keep<T>(tensor: T): T;
  clone<T>(tensor: T): T;
  cast(x: unknown, dtype: 'float32'): Tensor;
  div(a: unknown, b: unknown): Tensor;
  mul(a: unknown, b: unknown): Tensor;
  sub(a: unknown, b: unknown): Tensor;
  add(a: unknown, b: unknown): Tensor;
  sqrt(x: unknown): Tensor;
  exp(x: unknown): Tensor;
  sigmoid(x: unknown): Tensor;
  reshape(x: unknown, shape: number[]): Tensor;
  tile(x: unknown, reps: number[]): Tensor;
  transpose(x: unknown, perm: number[]): Tensor;
  unstack(x: unknown): Tensor[];
  stack(xs: unknown[]): Tensor;
  slice(x: unknown, begin: number[], size: number[]): Tensor;
  concat(xs: unknown[], axis: number): Tensor;
  fused: {
    conv2d(args: { x: unknown; filter: unknown; strides: number; pad: 'same'; bias: unknown; activation?: 'relu6' }): Tensor;
    depthwiseConv2d(args: { x: unknown; filter: unknown; strides: number; pad: 'same'; bias: unknown; activation: 'relu6' }): Tensor;
  };
}

interface Tensor {
  shape: number[];
  dispose(): void;
}

/** conv + bias + ReLU6 ("pointwise" in face-api's naming, though some are 3x3). */
interface ConvParams {
  filters: Tensor;
  batch_norm_offset: Tensor;
}
interface DepthwiseParams {
  filters: Tensor;
  batch_norm_scale: Tensor;
  batch_norm_offset: Tensor;
  batch_norm_mean: Tensor;
  batch_norm_variance: Tensor;
}
interface BoxPredictorParams {
  box_encoding_predictor: { filters: Tensor; bias: Tensor };
  class_predictor: { filters: Tensor; bias: Tensor };
}
type Indexed<T> = Record<string, T>;
interface SsdParams {
  mobilenetv1: Indexed<ConvParams | { depthwise_conv: DepthwiseParams; pointwise_conv: ConvParams }>;
  prediction_layer: Indexed<ConvParams | BoxPredictorParams>;
  output_layer: { extra_dim: Tensor };
}

/** face-api's network object: its loaded params and the method this replaces. */
export interface SsdNetwork {
  params?: unknown;
  forwardInput(input: { toBatchTensor(size: number, center: boolean): TfTensor3D }): { boxes: Tensor[]; scores: Tensor[] };
}

/** face-api's batch-norm epsilon (float32 0.001). */
const EPSILON = 0.0010000000474974513;
/** MobileNet layers whose depthwise convolution has stride 2. */
const STRIDE_2 = new Set([2, 4, 6, 12]);

/**
 * Replaces `net.forwardInput` with the lean pass; the network must have its weights loaded. Returns
 * false (and changes nothing) when the weights do not have the layout this pass knows.
 */
export function installLeanSsdForward(tf: LeanTf, net: SsdNetwork): boolean {
  const params = net.params as SsdParams | undefined;
  if (!params || !hasKnownLayout(params)) return false;
  const mobilenet = params.mobilenetv1;
  const layers = Array.from({ length: 13 }, (_, i) => {
    const pair = mobilenet[`conv_${i + 1}`] as { depthwise_conv: DepthwiseParams; pointwise_conv: ConvParams };
    return { depthwise: foldBatchNorm(tf, pair.depthwise_conv), pointwise: pair.pointwise_conv, stride: STRIDE_2.has(i + 1) ? 2 : 1 };
  });
  const prediction = params.prediction_layer;
  const conv = (x: Tensor, p: ConvParams, strides: number): Tensor =>
    tf.fused.conv2d({ x, filter: p.filters, strides, pad: 'same', bias: p.batch_norm_offset, activation: 'relu6' });
  /** Runs `f` on `x` and releases `x`. */
  const then = (x: Tensor, f: (x: Tensor) => Tensor): Tensor => {
    const y = f(x);
    x.dispose();
    return y;
  };

  net.forwardInput = (input) => {
    let x = tf.tidy(() => tf.sub(tf.div(tf.cast(input.toBatchTensor(512, false), 'float32'), 127.5), 1));
    x = then(x, (t) => conv(t, mobilenet.conv_0 as ConvParams, 2));
    let conv11: Tensor | null = null;
    layers.forEach((layer, i) => {
      x = then(x, (t) => tf.fused.depthwiseConv2d({ x: t, filter: layer.depthwise.filter, strides: layer.stride, pad: 'same', bias: layer.depthwise.bias, activation: 'relu6' }));
      x = then(x, (t) => conv(t, layer.pointwise, 1));
      if (i + 1 === 11) conv11 = tf.clone(x);
    });
    // The six feature maps the boxes are predicted from: conv 11, conv 13, then every second extra layer.
    const features: Tensor[] = [conv11!, x];
    let extra = conv(x, prediction.conv_0 as ConvParams, 1);
    for (let i = 1; i <= 7; i++) {
      const next = conv(extra, prediction[`conv_${i}`] as ConvParams, i % 2 === 1 ? 2 : 1);
      extra.dispose();
      extra = next;
      if (i % 2 === 1) features.push(tf.clone(extra));
    }
    extra.dispose();
    return tf.tidy(() => {
      const predictions = features.map((feature, k) => predictBoxes(tf, feature, prediction[`box_predictor_${k}`] as BoxPredictorParams));
      for (const f of features) f.dispose();
      return decodeOutputs(
        tf,
        tf.concat(predictions.map((p) => p.boxes), 1),
        tf.concat(predictions.map((p) => p.classes), 1),
        params.output_layer.extra_dim,
      );
    });
  };
  return true;
}

function hasKnownLayout(params: SsdParams): boolean {
  const m = params.mobilenetv1;
  const p = params.prediction_layer;
  if (!m?.conv_0 || !p || !params.output_layer?.extra_dim) return false;
  for (let i = 1; i <= 13; i++) if (!(m[`conv_${i}`] as { depthwise_conv?: unknown } | undefined)?.depthwise_conv) return false;
  for (let i = 0; i <= 7; i++) if (!p[`conv_${i}`]) return false;
  for (let k = 0; k <= 5; k++) if (!(p[`box_predictor_${k}`] as BoxPredictorParams | undefined)?.class_predictor) return false;
  return true;
}

/** depthwise(x) then batch norm == depthwise with filters scaled per channel, plus a bias. */
function foldBatchNorm(tf: LeanTf, p: DepthwiseParams): { filter: Tensor; bias: Tensor } {
  return tf.tidy(() => {
    const k = tf.div(p.batch_norm_scale, tf.sqrt(tf.add(p.batch_norm_variance, EPSILON)));
    const channels = k.shape[0]!;
    return {
      filter: tf.keep(tf.mul(p.filters, tf.reshape(k, [1, 1, channels, 1]))),
      bias: tf.keep(tf.sub(p.batch_norm_offset, tf.mul(p.batch_norm_mean, k))),
    };
  });
}

/** One feature map's box encodings [n, cells*anchors, 1, 4] and class logits [n, cells*anchors, 3]. */
function predictBoxes(tf: LeanTf, x: Tensor, p: BoxPredictorParams): { boxes: Tensor; classes: Tensor } {
  const n = x.shape[0]!;
  const conv = (c: { filters: Tensor; bias: Tensor }) => tf.fused.conv2d({ x, filter: c.filters, strides: 1, pad: 'same', bias: c.bias });
  return { boxes: tf.reshape(conv(p.box_encoding_predictor), [n, -1, 1, 4]), classes: tf.reshape(conv(p.class_predictor), [n, -1, 3]) };
}

/**
 * SSD's output layer: box encodings relative to the anchors (`extra_dim`) into [ymin, xmin, ymax,
 * xmax] (scales 10 and 5 as trained), and the face class's sigmoid as the score.
 */
function decodeOutputs(tf: LeanTf, encodings: Tensor, classes: Tensor, anchors: Tensor): { boxes: Tensor[]; scores: Tensor[] } {
  const n = encodings.shape[0]!;
  const a = tf.unstack(tf.transpose(tf.reshape(tf.tile(anchors, [n, 1, 1]), [-1, 4]), [1, 0]));
  const sizes = [tf.sub(a[2], a[0]), tf.sub(a[3], a[1])];
  const centers = [tf.add(a[0], tf.div(sizes[0], 2)), tf.add(a[1], tf.div(sizes[1], 2))];
  const e = tf.unstack(tf.transpose(tf.reshape(encodings, [-1, 4]), [1, 0]));
  const halfHeight = tf.div(tf.mul(tf.exp(tf.div(e[2], 5)), sizes[0]), 2);
  const centerY = tf.add(tf.mul(tf.div(e[0], 10), sizes[0]), centers[0]);
  const halfWidth = tf.div(tf.mul(tf.exp(tf.div(e[3], 5)), sizes[1]), 2);
  const centerX = tf.add(tf.mul(tf.div(e[1], 10), sizes[1]), centers[1]);
  const corners = tf.transpose(tf.stack([tf.sub(centerY, halfHeight), tf.sub(centerX, halfWidth), tf.add(centerY, halfHeight), tf.add(centerX, halfWidth)]), [1, 0]);
  const boxes = tf.reshape(corners, [n, corners.shape[0]! / n, 4]);
  const scores = tf.reshape(tf.slice(tf.sigmoid(tf.slice(classes, [0, 0, 1], [-1, -1, -1])), [0, 0, 0], [-1, -1, 1]), [n, -1]);
  return { boxes: tf.unstack(boxes), scores: tf.unstack(scores) };
}
