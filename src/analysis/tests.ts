import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import { lgamma } from './mathjs.js';

/** Result of a paired comparison on the same items (e.g. with and without a depth hint). */
export interface McNemarResult {
  /** Items right only in the first condition. */
  b: number;
  /** Items right only in the second condition. */
  c: number;
  /** Items where both agree (right-right plus wrong-wrong). */
  concordant: number;
  /** Exact two-sided p: 2·P(X <= min(b, c)), X ~ Bin(b + c, 1/2), capped at 1 (statsmodels' exact test). */
  p: number;
}

/** Exact McNemar test from the discordant counts. */
export function mcnemarExact(b: number, c: number, concordant = 0): McNemarResult {
  for (const [k, v] of Object.entries({ b, c })) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`mcnemar: ${k} must be a non-negative integer`);
  }
  const n = b + c;
  const p = n === 0 ? 1 : Math.min(1, 2 * binomialCdf(Math.min(b, c), n, 0.5));
  return { b, c, concordant, p };
}

/** Exact McNemar test on paired 0/1 outcomes of the same items in two conditions. */
export function mcnemarPaired(first: boolean[], second: boolean[]): McNemarResult {
  if (first.length !== second.length) throw new RangeError('mcnemar: paired outcome lists differ in length');
  let b = 0;
  let c = 0;
  for (let i = 0; i < first.length; i++) {
    if (first[i] && !second[i]) b++;
    else if (!first[i] && second[i]) c++;
  }
  return mcnemarExact(b, c, first.length - b - c);
}

/** log P(X = k) for X ~ Bin(n, p). */
function binomialLogPmf(k: number, n: number, p: number): number {
  if (p === 0) return k === 0 ? 0 : -Infinity;
  if (p === 1) return k === n ? 0 : -Infinity;
  return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * Math.log(p) + (n - k) * Math.log1p(-p);
}

export interface BinomialTestResult {
  successes: number;
  n: number;
  /** Chance level tested against. */
  p0: number;
  estimate: number;
  /** Exact two-sided p-value (R's binom.test: sum of outcomes no more likely than the observed one). */
  p: number;
  /** One-sided p-value that accuracy exceeds chance, P(X >= k). */
  p_greater: number;
}

/** Exact binomial test of `successes` out of `n` against chance rate `p0`. */
export function binomialTest(successes: number, n: number, p0: number): BinomialTestResult {
  if (!Number.isInteger(n) || n <= 0) throw new RangeError('binomial test: n must be a positive integer');
  if (!Number.isInteger(successes) || successes < 0 || successes > n) throw new RangeError('binomial test: successes must be an integer in [0, n]');
  if (!(p0 >= 0 && p0 <= 1)) throw new RangeError('binomial test: p0 must be in [0, 1]');
  const relErr = 1 + 1e-7;
  const d = binomialLogPmf(successes, n, p0);
  let p = 0;
  for (let i = 0; i <= n; i++) {
    const li = binomialLogPmf(i, n, p0);
    if (li <= d + Math.log(relErr)) p += Math.exp(li);
  }
  const pGreater = successes === 0 ? 1 : 1 - binomialCdf(successes - 1, n, p0);
  return { successes, n, p0, estimate: successes / n, p: Math.min(1, p), p_greater: pGreater };
}

/**
 * One-sample z test of a proportion against `p0` (normal approximation, no continuity correction).
 * `variance` picks the standard error: `null` (default) from p0, as statsmodels'
 * `proportions_ztest(count, nobs, p0, prop_var=p0)`; `sample` from the observed proportion, as
 * statsmodels' default `prop_var=False` (z is infinite when every or no answer is right).
 * `alternative` as statsmodels names it: `two-sided` (default), `larger` (the proportion exceeds p0:
 * P(Z >= z)) or `smaller`. test/analysis/fixtures/ztest.json, made by make-ztest.py there, holds
 * statsmodels' values.
 */
export function proportionZTest(successes: number, n: number, p0: number, options: { variance?: 'null' | 'sample'; alternative?: 'two-sided' | 'larger' | 'smaller' } = {}): { z: number; p: number } {
  if (!Number.isInteger(n) || n <= 0) throw new RangeError('z test: n must be a positive integer');
  if (!(successes >= 0 && successes <= n)) throw new RangeError('z test: successes must be in [0, n]');
  if (!(p0 > 0 && p0 < 1)) throw new RangeError('z test: p0 must be in (0, 1)');
  const phat = successes / n;
  const v = options.variance === 'sample' ? phat * (1 - phat) : p0 * (1 - p0);
  const diff = phat - p0;
  const z = v === 0 ? (diff === 0 ? NaN : Math.sign(diff) * Infinity) : diff / Math.sqrt(v / n);
  if (Number.isNaN(z)) return { z, p: NaN };
  const alternative = options.alternative ?? 'two-sided';
  const p = alternative === 'larger' ? normalCdf(-z, 0, 1) : alternative === 'smaller' ? normalCdf(z, 0, 1) : 2 * normalCdf(-Math.abs(z), 0, 1);
  return { z, p };
}

/**
 * Exact one-sided p that a sum of independent Bernoulli trials with success probabilities `probs`
 * (a Poisson-binomial) reaches `successes`: P(X >= successes). The distribution is built term by term
 * (no subtraction, so tails far below 1e-16 keep their digits); O(n²) for n trials. Matches the sum of SciPy's
 * `poisson_binom.pmf` over k >= successes (test/analysis/fixtures/poisson-binomial.json).
 */
export function poissonBinomialUpper(successes: number, probs: readonly number[]): number {
  const n = probs.length;
  if (!Number.isInteger(successes) || successes < 0 || successes > n) throw new RangeError('Poisson-binomial: successes must be an integer in [0, n]');
  for (const p of probs) if (!(p >= 0 && p <= 1)) throw new RangeError('Poisson-binomial: every probability must be in [0, 1]');
  if (successes === 0) return 1;
  // pmf[k] = P(k successes among the trials so far), updated in place from the top down.
  const pmf = new Float64Array(n + 1);
  pmf[0] = 1;
  for (let i = 0; i < n; i++) {
    const p = probs[i];
    const q = 1 - p;
    for (let k = i + 1; k >= 1; k--) pmf[k] = pmf[k] * q + pmf[k - 1] * p;
    pmf[0] *= q;
  }
  let tail = 0;
  for (let k = n; k >= successes; k--) tail += pmf[k];
  return Math.min(1, tail);
}

/**
 * CircularEval against chance: `passed` of the items passed CircularEval, item i having `options[i]`
 * options. H0: each item passes with probability 1/k, the most any answerer without information on
 * which option is right can reach (it has to name the right option in the first rotation already);
 * answering every rotation at random passes with (1/k)^k only, so the test is conservative for it.
 * Exact one-sided Poisson-binomial p.
 */
export function circularChanceTest(passed: number, options: readonly number[]): { expected: number; p: number } {
  if (options.some((k) => !(Number.isInteger(k) && k >= 1))) throw new RangeError('chance test: every item needs a whole number of options >= 1');
  const probs = options.map((k) => 1 / k);
  return { expected: probs.reduce((s, p) => s + p, 0), p: poissonBinomialUpper(passed, probs) };
}
