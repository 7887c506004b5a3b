/**
 * The occlusion subsets' percentile rule (docs/et-plan.md, "Tasks", occlusion subsets), shared by task
 * generation and the metrics, which can recompute the subsets at scoring.
 */

/** The p-th percentile (0..100) of values, linearly interpolated between order statistics (numpy's default). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const v = [...values].sort((a, b) => a - b);
  const h = ((v.length - 1) * p) / 100;
  const lo = Math.floor(h);
  return lo + 1 < v.length ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

/** Occlusion subsets: size strictly below the 20th percentile of target size, distance strictly above the 80th of start distance. */
export const OCCLUSION = { size: 20, distance: 80 } as const;
