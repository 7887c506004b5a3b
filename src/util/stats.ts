/** Small numeric summaries shared by the stages (pure). */

/**
 * Quantile of ascending-sorted values with linear interpolation between order statistics (R type 7,
 * numpy's default), so figures can be checked against a Python reference. NaN for no values.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** Mean of numbers; null for none. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}
