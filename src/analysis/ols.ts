import { matrix, multiply, pinv, transpose, qr, type Matrix } from './mathjs.js';
import tcdf from '@stdlib/stats-base-dists-t-cdf';
import tquantile from '@stdlib/stats-base-dists-t-quantile';
import fcdf from '@stdlib/stats-base-dists-f-cdf';

/** One fitted coefficient, named `const` for the intercept or after its regressor. */
export interface Coefficient {
  name: string;
  estimate: number;
  se: number;
  t: number;
  /** Two-sided p-value. */
  p: number;
  /** 95% confidence interval (or the level the fit was asked for). */
  ci: [number, number];
}

/** An ordinary-least-squares fit, with the fields statsmodels' summary shows. */
export interface OlsResult {
  n: number;
  df_model: number;
  df_resid: number;
  coefficients: Coefficient[];
  r2: number;
  adj_r2: number;
  f: number;
  f_p: number;
  /** Residual standard error, sqrt(SSR / df_resid). */
  sigma: number;
  ssr: number;
  ci_level: number;
}

export interface OlsOptions {
  /** Add a `const` column (default true). */
  intercept?: boolean;
  /** Confidence level of the coefficient intervals (default 0.95). */
  ciLevel?: number;
}

/** Two-sided p-value of a t statistic, computed from the lower tail so tiny p-values keep precision. */
export function tTwoSidedP(t: number, df: number): number {
  return 2 * tcdf(-Math.abs(t), df);
}

function matrixRank(X: number[][]): number {
  const { R } = qr(matrix(X));
  const r = (R as Matrix).toArray() as number[][];
  const diag = r.slice(0, Math.min(r.length, r[0]?.length ?? 0)).map((row, i) => Math.abs(row[i]));
  const tol = Math.max(...diag, 0) * Math.max(X.length, X[0]?.length ?? 0) * Number.EPSILON;
  return diag.filter((d) => d > tol).length;
}

/**
 * Regresses y on the named columns of `x` by OLS with the statsmodels formulas (docs/reference.md,
 * "Statistics formulas"):
 * coef = pinv(X) y, df_resid = n - rank, se from sigma² (X'X)⁻¹, p = 2·tcdf(-|t|), CI with t.ppf.
 */
export function ols(y: number[], x: Record<string, number[]>, options: OlsOptions = {}): OlsResult {
  const intercept = options.intercept ?? true;
  const ciLevel = options.ciLevel ?? 0.95;
  const names = Object.keys(x);
  const n = y.length;
  if (names.length === 0 && !intercept) throw new RangeError('ols: no regressors');
  for (const name of names) {
    if (x[name].length !== n) throw new RangeError(`ols: column "${name}" has ${x[name].length} values, y has ${n}`);
  }
  for (const v of [y, ...names.map((k) => x[k])]) {
    if (v.some((e) => !Number.isFinite(e))) throw new RangeError('ols: non-finite value in the data');
  }
  const colNames = intercept ? ['const', ...names] : names;
  const X = y.map((_, i) => (intercept ? [1] : []).concat(names.map((k) => x[k][i])));
  const rank = matrixRank(X);
  const dfResid = n - rank;
  if (dfResid <= 0) throw new RangeError(`ols: ${n} observations are too few for ${rank} independent columns`);
  const dfModel = rank - (intercept ? 1 : 0);

  const coef = (multiply(pinv(X), y) as unknown as number[]).map(Number);
  const fitted = X.map((row) => row.reduce((s, v, j) => s + v * coef[j], 0));
  const ssr = y.reduce((s, v, i) => s + (v - fitted[i]) ** 2, 0);
  const mean = y.reduce((s, v) => s + v, 0) / n;
  // Uncentered total sum of squares without an intercept, as statsmodels does.
  const sst = intercept ? y.reduce((s, v) => s + (v - mean) ** 2, 0) : y.reduce((s, v) => s + v * v, 0);
  const ess = sst - ssr;
  const sigma2 = ssr / dfResid;
  const xtxInv = pinv(multiply(transpose(X), X)) as number[][];
  const tcrit = tquantile(1 - (1 - ciLevel) / 2, dfResid);

  const coefficients = colNames.map((name, j) => {
    const se = Math.sqrt(sigma2 * xtxInv[j][j]);
    const t = coef[j] / se;
    return { name, estimate: coef[j], se, t, p: tTwoSidedP(t, dfResid), ci: [coef[j] - tcrit * se, coef[j] + tcrit * se] as [number, number] };
  });
  const r2 = 1 - ssr / sst;
  const adjR2 = 1 - ((n - (intercept ? 1 : 0)) / dfResid) * (1 - r2);
  const f = dfModel > 0 ? ess / dfModel / sigma2 : NaN;
  // Upper tail via 1/F ~ F(df_resid, df_model), which keeps precision for tiny p-values.
  const fP = dfModel > 0 ? (f > 0 ? fcdf(1 / f, dfResid, dfModel) : 1) : NaN;
  return { n, df_model: dfModel, df_resid: dfResid, coefficients, r2, adj_r2: adjR2, f, f_p: fP, sigma: Math.sqrt(sigma2), ssr, ci_level: ciLevel };
}

/** Value of a fit's regression line with one regressor at `x`, with the CI of the mean prediction. */
export function simplePredictionBand(y: number[], x: number[], fit: OlsResult, at: number[]): { x: number; fit: number; low: number; high: number }[] {
  const [c, b] = fit.coefficients;
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const sxx = x.reduce((s, v) => s + (v - mx) ** 2, 0);
  const tcrit = tquantile(1 - (1 - fit.ci_level) / 2, fit.df_resid);
  return at.map((v) => {
    const yhat = c.estimate + b.estimate * v;
    const se = fit.sigma * Math.sqrt(1 / n + (v - mx) ** 2 / sxx);
    return { x: v, fit: yhat, low: yhat - tcrit * se, high: yhat + tcrit * se };
  });
}
