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

/**
 * {@link quantileSorted} of unsorted values, for each of `qs`, without sorting them all: each order
 * statistic it needs is selected in place (the order of `values` changes). NaN for no values.
 */
export function quantilesInPlace(values: Float64Array, qs: readonly number[]): number[] {
  const n = values.length;
  if (n === 0) return qs.map(() => NaN);
  const ranks = [...new Set(qs.flatMap((q) => [Math.floor((n - 1) * q), Math.ceil((n - 1) * q)]))].sort((a, b) => a - b);
  // After selecting rank k, everything from k + 1 on is >= values[k]: the next rank is selected there.
  let from = 0;
  for (const k of ranks) {
    selectInPlace(values, k, from, n - 1);
    from = k + 1;
  }
  // Every rank quantileSorted reads now holds its order statistic.
  return qs.map((q) => quantileSorted(values, q));
}

/** Puts the k-th smallest of a[left..right] at k, smaller-or-equal values before it, larger-or-equal after. */
function selectInPlace(a: Float64Array, k: number, left: number, right: number): void {
  while (right > left) {
    const x = a[left]!;
    const y = a[(left + right) >>> 1]!;
    const z = a[right]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i++] = a[j]!;
        a[j--] = t;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

/** Mean of numbers; null for none. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Below this a double cannot tell a p-value from 0 (1 minus a CDF is exact to about 1e-16). */
export const P_FLOOR = 1e-16;

/**
 * A p-value as every table and summary prints it: three decimals, two significant digits in exponent
 * form below 0.001, and `< 1e-16` below the floor, so a p is never printed as 0; `n/a` when there is none.
 */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || Number.isNaN(p)) return 'n/a';
  if (p < P_FLOOR) return '< 1e-16';
  return p < 0.001 ? p.toExponential(1) : p.toFixed(3);
}
