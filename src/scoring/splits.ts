/** Split and column order of the paper's tables; unknown splits follow, sorted. */
import { SPLITS } from '../datasets/manifest.js';

export function orderSplits(names: Iterable<string>): string[] {
  const known = SPLITS as readonly string[];
  return [...new Set(names)].sort((a, b) => {
    const ia = known.indexOf(a);
    const ib = known.indexOf(b);
    if (ia >= 0 && ib >= 0) return ia - ib;
    if (ia >= 0) return -1;
    if (ib >= 0) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** Mean of numbers; null for none. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}
