import { seededUint32 } from '../util/random.js';
import { quantileSorted } from '../util/stats.js';

/** A point estimate with a percentile bootstrap confidence interval. */
export interface BootstrapInterval {
  estimate: number;
  low: number;
  high: number;
  level: number;
  resamples: number;
  seed: number;
  n: number;
}

export interface BootstrapOptions {
  /** Number of resamples (default 2000). */
  resamples?: number;
  /** Confidence level (default 0.95). */
  level?: number;
  /** PRNG seed (default 0): same seed, same interval. */
  seed?: number;
}

/**
 * Percentile bootstrap CI of the mean of per-item outcomes (1 = correct, 0 = wrong, or any number).
 * Resamples items with replacement; seeded, so the interval is reproducible.
 */
export function bootstrapMean(values: number[], options: BootstrapOptions = {}): BootstrapInterval {
  return bootstrapMeanOfMeans([values], options);
}

/**
 * Bootstrap CI of the mean of group means (e.g. Table 1's Total Average = mean of split accuracies,
 * or Avg G-Score = mean of column accuracies). Resamples within each group; empty groups are ignored.
 */
export function bootstrapMeanOfMeans(groups: number[][], options: BootstrapOptions = {}): BootstrapInterval {
  return bootstrapMeanOfRatios(groups.map((num) => ({ num })), options);
}

/** A group's items: the group's statistic is sum(num) / sum(den) (den 1 per item when absent: the mean). */
export interface RatioGroup {
  num: readonly number[];
  den?: readonly number[];
}

/**
 * Bootstrap CI of the mean over groups of each group's ratio sum(num) / sum(den), resampling items
 * within each group. A pooled accuracy over clustered records (VanillaEval: prompts right / prompts,
 * with an item's rotations as one cluster) is num = right, den = rotations per item, so the interval
 * is over the same estimator as the point. Empty groups are ignored.
 */
export function bootstrapMeanOfRatios(groups: RatioGroup[], options: BootstrapOptions = {}): BootstrapInterval {
  const resamples = options.resamples ?? 2000;
  const level = options.level ?? 0.95;
  const seed = options.seed ?? 0;
  const used = groups.filter((g) => g.num.length > 0);
  for (const g of used) if (g.den && g.den.length !== g.num.length) throw new RangeError('bootstrap: num and den differ in length');
  const n = used.reduce((s, g) => s + g.num.length, 0);
  if (used.length === 0) return { estimate: NaN, low: NaN, high: NaN, level, resamples, seed, n };
  // The draws of seededRandom(seed), as integers (u / 2^32 is the uniform); typed copies keep the
  // inner loop monomorphic. Without `den` the weight is the count, exactly.
  const next = seededUint32(seed);
  const nums = used.map((g) => Float64Array.from(g.num));
  const dens = used.map((g) => (g.den ? Float64Array.from(g.den) : null));
  const stats = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let total = 0;
    for (let g = 0; g < nums.length; g++) {
      const num = nums[g];
      const den = dens[g];
      const len = num.length;
      let sum = 0;
      if (den === null) {
        for (let i = 0; i < len; i++) sum += num[Math.floor((next() / 4294967296) * len)];
        total += sum / len;
      } else {
        let weight = 0;
        for (let i = 0; i < len; i++) {
          const at = Math.floor((next() / 4294967296) * len);
          sum += num[at];
          weight += den[at];
        }
        total += sum / weight;
      }
    }
    stats[b] = total / used.length;
  }
  const sorted = Array.from(stats).sort((a, b) => a - b);
  const alpha = (1 - level) / 2;
  const sumOf = (v: readonly number[]) => v.reduce((a, x) => a + x, 0);
  const estimate = used.reduce((s, g) => s + sumOf(g.num) / (g.den ? sumOf(g.den) : g.num.length), 0) / used.length;
  return { estimate, low: quantileSorted(sorted, alpha), high: quantileSorted(sorted, 1 - alpha), level, resamples, seed, n };
}
