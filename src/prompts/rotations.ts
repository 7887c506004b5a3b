import { GsrError } from '../util/errors.js';

/**
 * CircularEval rotations (docs/reference.md, "Evaluation semantics"): rotation r shows original option (i + r) mod k at position i.
 * `count` limits how many of the k rotations are used (the first `count`).
 */
export function rotations(k: number, count: number = k): number[][] {
  if (!Number.isInteger(k) || k < 1) throw new GsrError(`cannot rotate ${k} options`);
  if (!Number.isInteger(count) || count < 1 || count > k) {
    throw new GsrError(`--permutations must be between 1 and ${k} for ${k} options, got ${count}`);
  }
  const out: number[][] = [];
  for (let r = 0; r < count; r++) out.push(Array.from({ length: k }, (_, i) => (i + r) % k));
  return out;
}
