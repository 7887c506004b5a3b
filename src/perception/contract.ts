/** Checks a loaded ONNX session against a manifest's I/O contract (names, dtypes, shapes). */
import type { GraphContract, TensorSpec } from './manifest.js';
import type { Session } from './runtime.js';

interface ValueMeta {
  name: string;
  isTensor: boolean;
  type?: string;
  shape?: ReadonlyArray<number | string>;
}

function fmtShape(shape: ReadonlyArray<number | string> | undefined): string {
  return shape ? `[${shape.join(',')}]` : '[?]';
}

function compare(kind: 'input' | 'output', spec: TensorSpec, meta: ValueMeta | undefined, problems: string[]): void {
  if (!meta) {
    if (!spec.optional) problems.push(`missing ${kind} "${spec.name}"`);
    return;
  }
  if (!meta.isTensor || meta.type !== spec.dtype) {
    problems.push(`${kind} "${spec.name}" has dtype ${meta.type ?? 'non-tensor'}, expected ${spec.dtype}`);
  }
  const shape = meta.shape;
  if (!shape) return;
  const rankOk = shape.length === spec.shape.length;
  // Fixed sizes must agree; a symbolic axis in the contract accepts any size or name.
  const dimsOk = rankOk && spec.shape.every((d, i) => typeof d === 'string' || shape[i] === d || typeof shape[i] === 'string' || shape[i] === -1);
  if (!rankOk || !dimsOk) {
    problems.push(`${kind} "${spec.name}" has shape ${fmtShape(shape)}, expected ${fmtShape(spec.shape)}`);
  }
}

/** Every way the session differs from the contract; empty when it matches. */
export function contractProblems(session: Session, contract: GraphContract): string[] {
  const problems: string[] = [];
  const inMeta = new Map((session.inputMetadata as readonly ValueMeta[]).map((m) => [m.name, m]));
  const outMeta = new Map((session.outputMetadata as readonly ValueMeta[]).map((m) => [m.name, m]));
  for (const spec of contract.inputs) compare('input', spec, inMeta.get(spec.name), problems);
  for (const spec of contract.outputs) compare('output', spec, outMeta.get(spec.name), problems);
  const known = new Set(contract.inputs.map((s) => s.name));
  for (const name of inMeta.keys()) if (!known.has(name)) problems.push(`unexpected input "${name}"`);
  return problems;
}
