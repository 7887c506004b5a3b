import { multiply, pinv, transpose } from './mathjs.js';
import { regress, type RegressionReport, type RegressionTable } from './regression.js';
import type { RoundingSensitivity } from './rounding.js';
import { formatP } from '../util/stats.js';

/** What leaving one row out does to the fit of the first regressor. */
export interface InfluenceRow {
  /** The row left out. */
  label: string;
  /** The first regressor's slope and two-sided p fitted without this row. */
  slope: number;
  p: number;
  r2: number;
  /** Cook's distance of this row in the full fit. */
  cooks_d: number;
  /** Leverage (hat-matrix diagonal) of this row in the full fit. */
  leverage: number;
  residual: number;
}

export interface InfluenceReport {
  /** The fit with every row. */
  full: RegressionReport;
  /** The regressor whose slope the rows report. */
  coefficient: string;
  rows: InfluenceRow[];
}

/** Rows of the table without row `skip`. */
export function withoutRow(table: RegressionTable, skip: number): RegressionTable {
  const keep = <T>(v: T[]) => v.filter((_, i) => i !== skip);
  return { ...table, labels: keep(table.labels), y: { ...table.y, values: keep(table.y.values) }, x: table.x.map((c) => ({ ...c, values: keep(c.values) })) };
}

/**
 * Leave-one-out influence: for each row, the fit without it (slope and p of the first regressor) and its
 * Cook's distance in the full fit, D_i = e_i² h_i / (k s² (1 − h_i)²) with k fitted parameters
 * (statsmodels' `OLSInfluence.cooks_distance`).
 */
export function leaveOneOut(table: RegressionTable): InfluenceReport {
  const full = regress(table);
  const n = table.labels.length;
  if (n - 1 <= full.coefficients.length) throw new RangeError(`leave-one-out needs more than ${full.coefficients.length + 1} rows, got ${n}`);
  const X = table.y.values.map((_, i) => [1, ...table.x.map((c) => c.values[i])]);
  const xtxInv = pinv(multiply(transpose(X), X)) as number[][];
  const coef = full.coefficients.map((c) => c.estimate);
  const k = full.n - full.df_resid;
  const s2 = full.sigma ** 2;
  const rows = table.labels.map((label, i) => {
    const xi = X[i];
    const h = xi.reduce((s, a, r) => s + a * xi.reduce((t, b, c) => t + xtxInv[r][c] * b, 0), 0);
    const e = table.y.values[i] - xi.reduce((s, v, j) => s + v * coef[j], 0);
    const fit = regress(withoutRow(table, i));
    const b = fit.coefficients[1];
    return { label, slope: b.estimate, p: b.p, r2: fit.r2, cooks_d: (e * e * h) / (k * s2 * (1 - h) ** 2), leverage: h, residual: e };
  });
  return { full, coefficient: full.coefficients[1].name, rows };
}

/** The leave-one-out table as aligned text (with slope and p ranges when rows carry `rounding`). */
export function formatInfluence(r: { coefficient: string; rows: (InfluenceRow & { rounding?: RoundingSensitivity })[] }): string {
  const width = Math.max(12, ...r.rows.map((row) => row.label.length)) + 2;
  const withRounding = r.rows.some((row) => row.rounding);
  const head = `${'left out'.padEnd(width)}${'slope'.padStart(9)}${'p'.padStart(9)}${'R²'.padStart(8)}${"Cook's D".padStart(10)}${'leverage'.padStart(10)}`;
  const lines = [`Leave-one-out fits (slope of ${r.coefficient}); Cook's distance and leverage in the fit with every row`, head + (withRounding ? '   slope range (rounding)   p range (rounding)' : '')];
  for (const row of r.rows) {
    let line = `${row.label.padEnd(width)}${row.slope.toFixed(3).padStart(9)}${formatP(row.p).padStart(9)}${row.r2.toFixed(3).padStart(8)}${row.cooks_d.toFixed(3).padStart(10)}${row.leverage.toFixed(3).padStart(10)}`;
    if (row.rounding) {
      const { slope, p } = row.rounding;
      line += `   [${slope.low.toFixed(3)}, ${slope.high.toFixed(3)}]`.padEnd(28) + `[${formatP(p.low)}, ${formatP(p.high)}]`;
    }
    lines.push(line);
  }
  return lines.join('\n');
}
