import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ols,
  pearson,
  spearman,
  averageRanks,
  bootstrapMean,
  bootstrapMeanOfMeans,
  bootstrapMeanOfRatios,
  mcnemarExact,
  mcnemarPaired,
  binomialTest,
  poissonBinomialUpper,
  circularChanceTest,
  proportionZTest,
  type OlsResult,
} from '../../src/analysis/index.js';
import { formatP } from '../../src/util/stats.js';
import { seededRandom } from '../../src/util/random.js';

const here = new URL('.', import.meta.url).pathname;

/** statsmodels / scipy values for regression-data.csv, made by fixtures/make-regression-reference.py. */
interface RefFit {
  names: string[];
  params: number[];
  bse: number[];
  tvalues: number[];
  pvalues: number[];
  conf_int: [number, number][];
  rsquared: number;
  rsquared_adj: number;
  fvalue: number;
  f_pvalue: number;
  df_model: number;
  df_resid: number;
  sigma: number;
}
const ref = JSON.parse(readFileSync(join(here, 'fixtures', 'regression-reference.json'), 'utf8')) as {
  n: number;
  means: Record<'y' | 'x1' | 'x2', number>;
  multiple: RefFit;
  simple: RefFit;
  correlation: Record<'pearson' | 'spearman', { r: number; p: number }>;
};
const rows = readFileSync(join(here, 'fixtures', 'regression-data.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
const col = (i: number) => rows.map((r) => Number(r[i]));
const y = col(1);
const x1 = col(2);
const x2 = col(3);

/** Relative closeness to a published figure printed with `digits` significant digits. */
function closeToPrinted(actual: number, printed: number, digits: number): void {
  const scale = 10 ** (Math.floor(Math.log10(Math.abs(printed))) - digits + 1);
  expect(Math.abs(actual - printed)).toBeLessThanOrEqual(scale / 2 + 1e-15);
}

/** Within `tol` of a reference value, relative to its size, so p-values near 1e-20 are checked too. */
function closeRel(actual: number, expected: number, tol = 1e-11): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tol * Math.abs(expected));
}

/** Every figure of a fit against statsmodels' for the same model. */
function expectFit(fit: OlsResult, r: RefFit): void {
  expect(fit.coefficients.map((c) => c.name)).toEqual(r.names);
  fit.coefficients.forEach((c, j) => {
    closeRel(c.estimate, r.params[j]);
    closeRel(c.se, r.bse[j]);
    closeRel(c.t, r.tvalues[j]);
    closeRel(c.p, r.pvalues[j]);
    closeRel(c.ci[0], r.conf_int[j][0]);
    closeRel(c.ci[1], r.conf_int[j][1]);
  });
  expect(fit.n).toBe(ref.n);
  expect(fit.df_model).toBe(r.df_model);
  expect(fit.df_resid).toBe(r.df_resid);
  closeRel(fit.r2, r.rsquared);
  closeRel(fit.adj_r2, r.rsquared_adj);
  closeRel(fit.f, r.fvalue);
  closeRel(fit.f_p, r.f_pvalue);
  closeRel(fit.sigma, r.sigma);
}

describe('ols', () => {
  it('matches the statsmodels reference case of docs/reference.md to 1e-9', () => {
    const x = [0.05, 0.12, 0.18, 0.22, 0.31, 0.35, 0.42, 0.5, 0.58];
    const y = [0.31, 0.36, 0.35, 0.44, 0.47, 0.52, 0.5, 0.61, 0.66];
    const fit = ols(y, { x });
    const slope = fit.coefficients[1];
    expect(slope.name).toBe('x');
    expect(fit.coefficients[0].name).toBe('const');
    expect(Math.abs(slope.estimate - 0.653120849934)).toBeLessThan(1e-9);
    expect(Math.abs(slope.se - 0.053455500617)).toBeLessThan(1e-9);
    expect(Math.abs(slope.p - 5.634064797182e-6)).toBeLessThan(1e-9);
    expect(Math.abs(slope.p / 5.634064797182e-6 - 1)).toBeLessThan(1e-9);
    expect(Math.abs(fit.r2 - 0.9552086657)).toBeLessThan(1e-9);
    expect(fit.n).toBe(9);
    expect(fit.df_resid).toBe(7);
  });

  it('reads the project-made data whole: n and column means as numpy computed them', () => {
    expect(rows).toHaveLength(ref.n);
    const mean = (v: number[]) => v.reduce((s, e) => s + e) / v.length;
    closeRel(mean(y), ref.means.y, 1e-12);
    closeRel(mean(x1), ref.means.x1, 1e-12);
    closeRel(mean(x2), ref.means.x2, 1e-12);
  });

  it('matches statsmodels OLS y ~ x1 + x2: coefficients, se, t, p, conf_int, R², F, df to 1e-11 relative', () => {
    expectFit(ols(y, { x1, x2 }), ref.multiple);
  });

  it('matches statsmodels OLS y ~ x1', () => {
    const fit = ols(y, { x1 });
    expectFit(fit, ref.simple);
    // With one regressor the F test is the slope's t test.
    expect(Math.abs(fit.f_p / fit.coefficients[1].p - 1)).toBeLessThan(1e-9);
  });

  it('rejects too few observations and mismatched columns', () => {
    expect(() => ols([1, 2], { x: [1, 2] })).toThrow(/too few/);
    expect(() => ols([1, 2, 3], { x: [1, 2] })).toThrow(/has 2 values/);
    expect(() => ols([1, NaN, 3], { x: [1, 2, 3] })).toThrow(/non-finite/);
  });

  it('handles a collinear column through the pseudo-inverse with df from the rank', () => {
    const x = [1, 2, 3, 4, 5, 6];
    const fit = ols([2, 4.1, 5.9, 8.2, 9.8, 12.1], { x, x2: x.map((v) => 2 * v) });
    expect(fit.df_resid).toBe(4);
    expect(fit.df_model).toBe(1);
  });
});

describe('correlation', () => {
  // scipy pearsonr and spearmanr, whose p-values the fixture script checks against R's cor.test
  // (Spearman with exact = FALSE, the t approximation).
  it('matches scipy pearsonr and spearmanr (average ranks over ties) to 1e-11 relative', () => {
    expect(new Set(y).size).toBeLessThan(y.length);
    expect(new Set(x1).size).toBeLessThan(x1.length);
    const p = pearson(y, x1);
    closeRel(p.r, ref.correlation.pearson.r);
    closeRel(p.p, ref.correlation.pearson.p);
    const s = spearman(y, x1);
    closeRel(s.r, ref.correlation.spearman.r);
    closeRel(s.p, ref.correlation.spearman.p);
  });

  it('gives the textbook rho for distinct ranks', () => {
    // rho = 1 - 6·Σd² / (n(n²-1)) = 1 - 6·4 / 120 = 0.8
    expect(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).r).toBeCloseTo(0.8, 12);
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
  });
});

describe('bootstrap', () => {
  it('is reproducible with a seed and differs across seeds', () => {
    const values = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const a = bootstrapMean(values, { seed: 7 });
    const b = bootstrapMean(values, { seed: 7 });
    const c = bootstrapMean(values, { seed: 8 });
    expect(a).toEqual(b);
    expect([a.low, a.high]).not.toEqual([c.low, c.high]);
    expect(a.estimate).toBeCloseTo(67 / 200, 12);
  });

  it('matches hand-computed intervals', () => {
    // Constant outcomes: every resample has the same mean.
    const all = bootstrapMean([1, 1, 1, 1], { seed: 1 });
    expect([all.low, all.high]).toEqual([1, 1]);
    // Two items [0, 1]: the resampled mean is 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4, so
    // the 2.5% and 97.5% percentiles are 0 and 1.
    const two = bootstrapMean([0, 1], { seed: 3, resamples: 4000 });
    expect([two.low, two.high]).toEqual([0, 1]);
    // Large n: close to the normal interval p ± 1.96·sqrt(p(1-p)/n).
    const n = 1000;
    const big = bootstrapMean(Array.from({ length: n }, (_, i) => (i < 600 ? 1 : 0)), { seed: 5, resamples: 4000 });
    const half = 1.96 * Math.sqrt((0.6 * 0.4) / n);
    expect(Math.abs(big.low - (0.6 - half))).toBeLessThan(0.005);
    expect(Math.abs(big.high - (0.6 + half))).toBeLessThan(0.005);
  });

  it('a ratio bootstrap is over the pooled estimator: its estimate is the point, and equal weights give the mean of means', () => {
    // Items of 2 and 4 rotations (a mixed split): 2-option items all right, 4-option items 1 of 4 right.
    const right = [...Array(20).fill(2), ...Array(40).fill(1)];
    const rotations = [...Array(20).fill(2), ...Array(40).fill(4)];
    const pooled = 80 / 200;
    const r = bootstrapMeanOfRatios([{ num: right, den: rotations }], { seed: 1 });
    expect(r.estimate).toBeCloseTo(pooled, 15);
    expect(r.low).toBeLessThanOrEqual(pooled);
    expect(r.high).toBeGreaterThanOrEqual(pooled);
    // The mean of item shares is another estimator (0.5 here): its interval need not hold the pooled point.
    const itemMeans = bootstrapMean(right.map((v, i) => v / rotations[i]), { seed: 1 });
    expect(itemMeans.estimate).toBeCloseTo(0.5, 15);
    expect(itemMeans.low).toBeGreaterThan(pooled);
    // Without weights the same resamples give exactly the mean-of-means interval.
    const groups = [[1, 0, 1, 1], [0, 0, 1]];
    expect(bootstrapMeanOfRatios(groups.map((num) => ({ num })), { seed: 4 })).toEqual(bootstrapMeanOfMeans(groups, { seed: 4 }));
    expect(() => bootstrapMeanOfRatios([{ num: [1], den: [1, 2] }])).toThrow(RangeError);
  });

  it('the generator is uniform enough', () => {
    const r = seededRandom(42);
    let s = 0;
    for (let i = 0; i < 10000; i++) s += r();
    expect(Math.abs(s / 10000 - 0.5)).toBeLessThan(0.01);
  });
});

describe('paired and chance tests', () => {
  it('exact McNemar matches hand computation', () => {
    // b = 1, c = 6: p = 2·P(X <= 1), X ~ Bin(7, 1/2) = 2·(1 + 7)/128 = 0.125
    expect(mcnemarExact(1, 6).p).toBeCloseTo(0.125, 14);
    // b = 0, c = 5: 2·(1/32) = 0.0625
    expect(mcnemarExact(0, 5).p).toBeCloseTo(0.0625, 14);
    // Balanced discordance caps at 1.
    expect(mcnemarExact(3, 3).p).toBe(1);
    expect(mcnemarExact(0, 0).p).toBe(1);
    const paired = mcnemarPaired([true, true, false, false, true], [true, false, true, true, true]);
    expect([paired.b, paired.c, paired.concordant]).toEqual([1, 2, 2]);
    // b = 1, c = 2: 2·(1 + 3)/8 = 1 -> capped
    expect(paired.p).toBe(1);
  });

  it('binomial test matches R binom.test(682, 925, p = 3/4)', () => {
    const r = binomialTest(682, 925, 0.75);
    closeToPrinted(r.p, 0.3825, 4);
    // Hand-computed: 9 of 10 at chance 1/2 -> two-sided 2·(1 + 10)/1024.
    expect(binomialTest(9, 10, 0.5).p).toBeCloseTo(22 / 1024, 14);
    expect(binomialTest(9, 10, 0.5).p_greater).toBeCloseTo(11 / 1024, 14);
  });

  it('Poisson-binomial upper tail matches SciPy (sum of poisson_binom.pmf) to 1e-12 relative', () => {
    const ref = JSON.parse(readFileSync(join(here, 'fixtures', 'poisson-binomial.json'), 'utf8')) as { cases: { probs: number[]; tails: { successes: number; p: number }[] }[] };
    let checked = 0;
    for (const c of ref.cases) {
      for (const t of c.tails) {
        const p = poissonBinomialUpper(t.successes, c.probs);
        expect(Math.abs(p - t.p)).toBeLessThanOrEqual(1e-12 * t.p);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
    // Equal probabilities are a binomial: P(X >= 9), X ~ Bin(10, 1/2) = 11/1024.
    expect(poissonBinomialUpper(9, Array(10).fill(0.5))).toBeCloseTo(11 / 1024, 15);
    expect(() => poissonBinomialUpper(3, [0.5, 0.5])).toThrow(RangeError);
    expect(() => poissonBinomialUpper(1, [1.5])).toThrow(RangeError);
  });

  it('the CircularEval chance test uses each item its own 1/k and keeps far tails', () => {
    // 20 two-option and 40 four-option items: 10 + 10 = 20 passes expected by chance.
    const options = [...Array(20).fill(2), ...Array(40).fill(4)];
    const t = circularChanceTest(20, options);
    expect(t.expected).toBeCloseTo(20, 12);
    expect(t.p).toBeGreaterThan(0.4);
    // Nothing passed (always-first under CircularEval): p = 1.
    expect(circularChanceTest(0, options).p).toBe(1);
    // Every item passed: the product of the chances, (1/2)^20 (1/4)^40, far below 1e-16 and not 0.
    const all = circularChanceTest(60, options).p;
    expect(Math.log2(all)).toBeCloseTo(-100, 9);
    expect(() => circularChanceTest(1, [0])).toThrow(RangeError);
  });

  it('p-values print with three decimals, in exponent form below 0.001, never as 0', () => {
    expect(formatP(0)).toBe('< 1e-16');
    expect(formatP(1e-300)).toBe('< 1e-16');
    expect(formatP(3.53e-5)).toBe('3.5e-5');
    expect(formatP(0.0123)).toBe('0.012');
    expect(formatP(1)).toBe('1.000');
    expect(formatP(null)).toBe('n/a');
    expect(formatP(Number.NaN)).toBe('n/a');
  });

  it('z test against chance', () => {
    const z = proportionZTest(60, 100, 0.5);
    expect(z.z).toBeCloseTo(2, 12);
    expect(z.p).toBeCloseTo(0.04550026389635842, 10);
  });
});
