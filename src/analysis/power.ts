import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import tquantile from '@stdlib/stats-base-dists-t-quantile';
import { lgamma } from './mathjs.js';
import { seededRandom } from '../util/random.js';
import { simpleSlope } from './regression.js';

/**
 * The setting of a cross-model regression of reasoning accuracy (y, %) on grounding accuracy (x, %):
 * each model's true reasoning is `reasoningMean + effect·(x − mean x) + e`, e ~ N(0, noise²), the
 * model-to-model scatter the line does not explain. With `items`, each model's measured grounding and
 * reasoning are shares of `items` independent trials at its true rates (the benchmark's item sampling).
 */
export interface PowerSetting {
  /** True grounding of each model, % (their count is k). */
  grounding: number[];
  /** True slope: reasoning points per grounding point. */
  effect: number;
  /** SD of the models' reasoning around the line, % points. */
  noise: number;
  /** Mean reasoning accuracy at the mean grounding, % (default 50). */
  reasoningMean?: number;
  /** Items per model behind each measured accuracy; omitted: accuracies measured without error. */
  items?: number;
  /** Significance level of the two-sided slope test (default 0.05). */
  alpha?: number;
  /** Monte-Carlo repetitions (default 10000). */
  simulations?: number;
  seed?: number;
}

/** A Monte-Carlo share with its 95% Wilson score interval. */
export interface McShare {
  estimate: number;
  low: number;
  high: number;
  hits: number;
  simulations: number;
}

export interface PowerResult {
  models: number;
  effect: number;
  noise: number;
  items: number | null;
  alpha: number;
  seed: number;
  /** Share of simulated studies with p < alpha (two-sided). */
  power: McShare;
  /** Share with p < alpha and a slope of the true sign. */
  power_right_sign: McShare;
  /** The same design with effect 0: the false-positive rate. */
  false_positive_rate: McShare;
  /** Mean fitted slope over the simulations (attenuated when grounding is measured with error). */
  mean_slope: number;
  /** Exact power from the noncentral t (normal noise, grounding without error); null with `items`. */
  analytic_power: number | null;
}

/** 95% Wilson score interval of a binomial share. */
export function wilsonInterval(hits: number, n: number, z = 1.959963984540054): McShare {
  const p = hits / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), hits, simulations: n };
}

function normalSampler(rand: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    // Box-Muller; 1 - u keeps the logarithm finite.
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const a = 2 * Math.PI * rand();
    spare = r * Math.sin(a);
    return r * Math.cos(a);
  };
}

function binomialShare(rate: number, n: number, rand: () => number): number {
  const p = Math.min(1, Math.max(0, rate));
  let k = 0;
  for (let i = 0; i < n; i++) if (rand() < p) k++;
  return k / n;
}

function validate(s: PowerSetting): void {
  if (s.grounding.length < 3) throw new RangeError('power: needs at least 3 models');
  if (s.grounding.some((v) => !Number.isFinite(v))) throw new RangeError('power: grounding values must be numbers');
  if (Math.max(...s.grounding) === Math.min(...s.grounding)) throw new RangeError('power: the models\' grounding must differ');
  if (!(s.noise >= 0)) throw new RangeError('power: noise must be >= 0');
  if (!Number.isFinite(s.effect)) throw new RangeError('power: effect must be a number');
  if (s.items !== undefined && !(Number.isInteger(s.items) && s.items > 0)) throw new RangeError('power: items must be a positive integer');
  const alpha = s.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError('power: alpha must be in (0, 1)');
  const sims = s.simulations ?? 10000;
  if (!(Number.isInteger(sims) && sims > 0)) throw new RangeError('power: simulations must be a positive integer');
}

/** Simulated studies' share of p < alpha for the given effect, and for the right sign. */
function simulate(s: PowerSetting, effect: number, seed: number): { hits: number; rightSign: number; slopeSum: number } {
  const rand = seededRandom(seed);
  const normal = normalSampler(rand);
  const alpha = s.alpha ?? 0.05;
  const sims = s.simulations ?? 10000;
  const k = s.grounding.length;
  const mx = s.grounding.reduce((a, v) => a + v, 0) / k;
  const my = s.reasoningMean ?? 50;
  const x = new Array<number>(k);
  const y = new Array<number>(k);
  let hits = 0;
  let rightSign = 0;
  let slopeSum = 0;
  for (let r = 0; r < sims; r++) {
    for (let i = 0; i < k; i++) {
      const truth = my + effect * (s.grounding[i] - mx) + s.noise * normal();
      if (s.items === undefined) {
        x[i] = s.grounding[i];
        y[i] = truth;
      } else {
        x[i] = 100 * binomialShare(s.grounding[i] / 100, s.items, rand);
        y[i] = 100 * binomialShare(truth / 100, s.items, rand);
      }
    }
    const fit = simpleSlope(x, y);
    if (Number.isFinite(fit.slope)) slopeSum += fit.slope;
    if (fit.p < alpha) {
      hits++;
      if (Math.sign(fit.slope) === Math.sign(effect)) rightSign++;
    }
  }
  return { hits, rightSign, slopeSum };
}

/**
 * Monte-Carlo power of the cross-model regression (two-sided slope test at `alpha`) and its
 * false-positive rate (the same design with no effect), each with a 95% Wilson interval; seeded.
 */
export function regressionPower(s: PowerSetting): PowerResult {
  validate(s);
  const seed = s.seed ?? 0;
  const sims = s.simulations ?? 10000;
  const alpha = s.alpha ?? 0.05;
  const withEffect = simulate(s, s.effect, seed);
  const nullRun = simulate(s, 0, seed + 1);
  const k = s.grounding.length;
  const mx = s.grounding.reduce((a, v) => a + v, 0) / k;
  const sxx = s.grounding.reduce((a, v) => a + (v - mx) ** 2, 0);
  const analytic = s.items === undefined && s.noise > 0 ? noncentralTPower(k - 2, (s.effect * Math.sqrt(sxx)) / s.noise, alpha) : null;
  return {
    models: k,
    effect: s.effect,
    noise: s.noise,
    items: s.items ?? null,
    alpha,
    seed,
    power: wilsonInterval(withEffect.hits, sims),
    power_right_sign: wilsonInterval(withEffect.rightSign, sims),
    false_positive_rate: wilsonInterval(nullRun.hits, sims),
    mean_slope: withEffect.slopeSum / sims,
    analytic_power: analytic,
  };
}

/**
 * P(|T| > t_{1−α/2, df}) for T noncentral t with `df` degrees of freedom and noncentrality `ncp`: the
 * exact power of the two-sided slope t test with fixed x and normal errors (ncp = β·sqrt(Sxx)/σ).
 * Integrates the normal tail over the chi-square law of the variance estimate (Simpson's rule on
 * u = sqrt(V), where the integrand is smooth).
 */
export function noncentralTPower(df: number, ncp: number, alpha = 0.05): number {
  if (!(df > 0)) throw new RangeError('noncentral t: df must be > 0');
  const c = tquantile(1 - alpha / 2, df);
  // V ~ chi²(df); u = sqrt(V) has density 2u·f_V(u²).
  const logNorm = -(df / 2) * Math.log(2) - lgamma(df / 2);
  const density = (u: number) => (u <= 0 ? (df === 1 ? 2 * Math.exp(logNorm) : 0) : 2 * u * Math.exp(logNorm + (df / 2 - 1) * Math.log(u * u) - (u * u) / 2));
  const tail = (u: number) => {
    const cut = c * (u / Math.sqrt(df));
    return normalCdf(-cut - ncp, 0, 1) + (1 - normalCdf(cut - ncp, 0, 1));
  };
  const upper = Math.sqrt(df) + 12;
  const steps = 4000;
  const h = upper / steps;
  let sum = 0;
  for (let i = 0; i <= steps; i++) {
    const u = i * h;
    const w = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
    sum += w * density(u) * tail(u);
  }
  return (sum * h) / 3;
}

/** Plain-text lines for a power result. */
export function formatPower(r: PowerResult): string {
  const pct = (m: McShare) => `${(100 * m.estimate).toFixed(1)}% [${(100 * m.low).toFixed(1)}, ${(100 * m.high).toFixed(1)}]`;
  const lines = [
    `${r.models} models, true effect ${r.effect} points of reasoning per point of grounding, noise SD ${r.noise} points` +
      `${r.items === null ? '' : `, ${r.items} items per accuracy`}; ${r.power.simulations} simulated studies each (seed ${r.seed})`,
    `power (p < ${r.alpha}):              ${pct(r.power)}`,
    `  with the true sign:         ${pct(r.power_right_sign)}`,
    `false-positive rate (no effect): ${pct(r.false_positive_rate)}`,
    `mean fitted slope: ${r.mean_slope.toFixed(3)}`,
  ];
  if (r.analytic_power !== null) lines.push(`exact power (noncentral t): ${(100 * r.analytic_power).toFixed(1)}%`);
  lines.push('(intervals: 95% Wilson intervals of the Monte-Carlo shares)');
  return lines.join('\n');
}
