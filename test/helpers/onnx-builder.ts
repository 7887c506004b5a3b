/**
 * Writes ONNX models without Python: the ModelProto schema (the subset we need, field numbers from
 * onnx.proto) built in protobufjs reflection, plus a small graph builder.
 */
import protobuf from 'protobufjs';

const { Root, Type, Field } = protobuf;

function type(name: string, fields: Array<[string, number, string, 'repeated'?]>): protobuf.Type {
  const t = new Type(name);
  for (const [fname, id, ftype, rule] of fields) t.add(new Field(fname, id, ftype, rule));
  return t;
}

const root = new Root();
root.add(type('Dimension', [['dim_value', 1, 'int64'], ['dim_param', 2, 'string']]));
root.add(type('TensorShapeProto', [['dim', 1, 'Dimension', 'repeated']]));
root.add(type('TypeProtoTensor', [['elem_type', 1, 'int32'], ['shape', 2, 'TensorShapeProto']]));
root.add(type('TypeProto', [['tensor_type', 1, 'TypeProtoTensor']]));
root.add(type('ValueInfoProto', [['name', 1, 'string'], ['type', 2, 'TypeProto']]));
root.add(type('TensorProto', [['dims', 1, 'int64', 'repeated'], ['data_type', 2, 'int32'], ['name', 8, 'string'], ['raw_data', 9, 'bytes']]));
root.add(
  type('AttributeProto', [
    ['name', 1, 'string'],
    ['f', 2, 'float'],
    ['i', 3, 'int64'],
    ['s', 4, 'bytes'],
    ['t', 5, 'TensorProto'],
    ['floats', 7, 'float', 'repeated'],
    ['ints', 8, 'int64', 'repeated'],
    ['type', 20, 'int32'],
  ]),
);
root.add(
  type('NodeProto', [
    ['input', 1, 'string', 'repeated'],
    ['output', 2, 'string', 'repeated'],
    ['name', 3, 'string'],
    ['op_type', 4, 'string'],
    ['attribute', 5, 'AttributeProto', 'repeated'],
    ['domain', 7, 'string'],
  ]),
);
root.add(
  type('GraphProto', [
    ['node', 1, 'NodeProto', 'repeated'],
    ['name', 2, 'string'],
    ['initializer', 5, 'TensorProto', 'repeated'],
    ['input', 11, 'ValueInfoProto', 'repeated'],
    ['output', 12, 'ValueInfoProto', 'repeated'],
  ]),
);
root.add(type('OperatorSetIdProto', [['domain', 1, 'string'], ['version', 2, 'int64']]));
root.add(
  type('ModelProto', [
    ['ir_version', 1, 'int64'],
    ['producer_name', 2, 'string'],
    ['graph', 7, 'GraphProto'],
    ['opset_import', 8, 'OperatorSetIdProto', 'repeated'],
  ]),
);
const ModelProto = root.lookupType('ModelProto');

/** ONNX TensorProto.DataType codes. */
export const DT = { float32: 1, int64: 7 } as const;
export type Dtype = keyof typeof DT;
/** A dimension: fixed size or a symbolic name. */
export type Dim = number | string;

type Attr = number | number[] | { floats: number[] } | { ints: number[] };

function attribute(name: string, value: Attr): Record<string, unknown> {
  if (typeof value === 'number') return Number.isInteger(value) ? { name, type: 2, i: value } : { name, type: 1, f: value };
  if (Array.isArray(value)) return { name, type: 7, ints: value };
  if ('floats' in value) return { name, type: 6, floats: value.floats };
  return { name, type: 7, ints: value.ints };
}

function valueInfo(name: string, dtype: Dtype, shape: Dim[]): Record<string, unknown> {
  const dim = shape.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d }));
  return { name, type: { tensor_type: { elem_type: DT[dtype], shape: { dim } } } };
}

/** Builds one graph: inputs, outputs, constants and nodes, with generated intermediate names. */
export class GraphBuilder {
  private readonly nodes: Record<string, unknown>[] = [];
  private readonly inits: Record<string, unknown>[] = [];
  private readonly inputs: Record<string, unknown>[] = [];
  private readonly outputs: Record<string, unknown>[] = [];
  private n = 0;

  input(name: string, dtype: Dtype, shape: Dim[]): string {
    this.inputs.push(valueInfo(name, dtype, shape));
    return name;
  }

  output(name: string, dtype: Dtype, shape: Dim[]): void {
    this.outputs.push(valueInfo(name, dtype, shape));
  }

  /** A float32 constant. */
  floats(values: ArrayLike<number>, dims: number[]): string {
    const name = `c${this.n++}`;
    const raw = new Uint8Array(Float32Array.from(values).buffer);
    this.inits.push({ name, data_type: DT.float32, dims, raw_data: raw });
    return name;
  }

  /** An int64 constant. */
  int64s(values: number[], dims: number[]): string {
    const name = `c${this.n++}`;
    const raw = new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer);
    this.inits.push({ name, data_type: DT.int64, dims, raw_data: raw });
    return name;
  }

  /** Adds a node with one output; `out` names it (a graph output) or a name is generated. */
  op(opType: string, inputs: string[], attrs: Record<string, Attr> = {}, out?: string): string {
    const name = out ?? `t${this.n++}`;
    this.nodes.push({
      op_type: opType,
      name: `n${this.n++}`,
      input: inputs,
      output: [name],
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return name;
  }

  /** Adds a node with several outputs. */
  opMulti(opType: string, inputs: string[], count: number, attrs: Record<string, Attr> = {}): string[] {
    const outs = Array.from({ length: count }, () => `t${this.n++}`);
    this.nodes.push({
      op_type: opType,
      name: `n${this.n++}`,
      input: inputs,
      output: outs,
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return outs;
  }

  /** Serialises the model (IR 8, default-domain opset 13). */
  toBytes(name = 'gsr-fixture'): Uint8Array {
    const model = {
      ir_version: 8,
      producer_name: 'gsr-bench test fixtures',
      opset_import: [{ domain: '', version: 13 }],
      graph: { name, node: this.nodes, initializer: this.inits, input: this.inputs, output: this.outputs },
    };
    const err = ModelProto.verify(model);
    if (err) throw new Error(`fixture model invalid: ${err}`);
    return ModelProto.encode(ModelProto.fromObject(model)).finish();
  }
}
