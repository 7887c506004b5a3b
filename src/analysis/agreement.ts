/** Agreement between two raters (pure). */

export interface KappaResult {
  n: number;
  /** Observed agreement. */
  observed: number;
  /** Agreement expected by chance from the raters' marginals. */
  expected: number;
  /** Cohen's kappa, (observed - expected) / (1 - expected); null when expected is 1 (no variation). */
  kappa: number | null;
  /** Counts table[a][b] over the categories, in `categories` order. */
  table: number[][];
  categories: string[];
}

/** Cohen's kappa of two raters' labels over the same n items (unweighted). */
export function cohenKappa(a: readonly string[], b: readonly string[]): KappaResult {
  if (a.length !== b.length) throw new RangeError(`cohenKappa: ${a.length} and ${b.length} ratings`);
  const categories = [...new Set([...a, ...b])].sort();
  const index = new Map(categories.map((c, i) => [c, i]));
  const k = categories.length;
  const table = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < a.length; i++) table[index.get(a[i])!][index.get(b[i])!]++;
  const n = a.length;
  if (n === 0) return { n, observed: NaN, expected: NaN, kappa: null, table, categories };
  let agree = 0;
  let expected = 0;
  for (let i = 0; i < k; i++) {
    agree += table[i][i];
    const row = table[i].reduce((s, v) => s + v, 0);
    const col = table.reduce((s, r) => s + r[i], 0);
    expected += (row / n) * (col / n);
  }
  const observed = agree / n;
  return { n, observed, expected, kappa: expected === 1 ? null : (observed - expected) / (1 - expected), table, categories };
}
