import { parse } from 'csv-parse/sync';
import { ols, tTwoSidedP, type OlsResult } from './ols.js';

/** A table of observations (one per model) ready to regress. */
export interface RegressionTable {
  /** Row labels (model names), for the summary and plot. */
  labels: string[];
  y: { name: string; values: number[] };
  x: { name: string; values: number[] }[];
  /** Rows left out, with why (a missing or non-numeric cell). */
  skipped: { label: string; reason: string }[];
}

/** A fit plus the data it came from. */
export interface RegressionReport extends OlsResult {
  y_name: string;
  x_names: string[];
  labels: string[];
  skipped: { label: string; reason: string }[];
}

/**
 * Builds a regression table from CSV text. The label column is `--label` or the first column that is
 * neither y nor an x. Rows with an empty or non-numeric y/x cell are skipped and listed.
 */
export function tableFromCsv(text: string, yCol: string, xCols: string[], labelCol?: string, source = 'CSV'): RegressionTable {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (err) {
    throw new RangeError(`${source}: malformed CSV (${(err as Error).message})`);
  }
  const header = rows.length > 0 ? Object.keys(rows[0]) : [];
  for (const c of [yCol, ...xCols]) {
    if (!header.includes(c)) throw new RangeError(`${source}: no column "${c}" (columns: ${header.join(', ')})`);
  }
  if (labelCol !== undefined && !header.includes(labelCol)) throw new RangeError(`${source}: no label column "${labelCol}"`);
  const label = labelCol ?? header.find((h) => h !== yCol && !xCols.includes(h));
  const table: RegressionTable = { labels: [], y: { name: yCol, values: [] }, x: xCols.map((name) => ({ name, values: [] })), skipped: [] };
  rows.forEach((row, i) => {
    const rowLabel = label !== undefined && row[label] ? row[label] : `row ${i + 2}`;
    const cells = [yCol, ...xCols].map((c) => [c, row[c] ?? ''] as const);
    const bad = cells.find(([, v]) => v === '' || !Number.isFinite(Number(v)));
    if (bad) {
      table.skipped.push({ label: rowLabel, reason: `${bad[0]} is ${bad[1] === '' ? 'empty' : `"${bad[1]}"`}` });
      return;
    }
    table.labels.push(rowLabel);
    table.y.values.push(Number(row[yCol]));
    xCols.forEach((c, j) => table.x[j].values.push(Number(row[c])));
  });
  return table;
}

/** Fits OLS of the table's y on its x columns (with `const`). */
export function regress(table: RegressionTable): RegressionReport {
  const x: Record<string, number[]> = {};
  for (const col of table.x) x[col.name] = col.values;
  const fit = ols(table.y.values, x);
  return { ...fit, y_name: table.y.name, x_names: table.x.map((c) => c.name), labels: table.labels, skipped: table.skipped };
}

/** Slope and its two-sided p of a one-regressor fit, in closed form (for searching many subsets fast). */
export function simpleSlope(x: number[], y: number[]): { slope: number; p: number } {
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (x[i] - mx) ** 2;
    sxy += (x[i] - mx) * (y[i] - my);
  }
  const slope = sxy / sxx;
  let ssr = 0;
  for (let i = 0; i < n; i++) ssr += (y[i] - my - slope * (x[i] - mx)) ** 2;
  const se = Math.sqrt(ssr / (n - 2) / sxx);
  return { slope, p: tTwoSidedP(slope / se, n - 2) };
}

export interface SubsetTarget {
  slope: number;
  p: number;
  /** Decimals the target was published with (default 3): a subset matches if it rounds to the target. */
  decimals?: number;
  /** Smallest subset tried (default 3). */
  minSize?: number;
  /** Rows that must be in every subset. */
  required?: string[];
  /** Refuses tables with more rows than this (2^n subsets; default 22). */
  maxRows?: number;
}

/**
 * Every subset of the table's rows whose one-regressor fit rounds to the published slope and p.
 * Used to find which models a paper's regression was run on. Largest subsets first.
 */
export function findMatchingSubsets(table: RegressionTable, target: SubsetTarget): string[][] {
  if (table.x.length !== 1) throw new RangeError('subset search needs exactly one x column');
  const n = table.labels.length;
  const maxRows = target.maxRows ?? 22;
  if (n > maxRows) throw new RangeError(`subset search over ${n} rows is too large (limit ${maxRows})`);
  const decimals = target.decimals ?? 3;
  const minSize = Math.max(3, target.minSize ?? 3);
  const round = (v: number) => Number(v.toFixed(decimals));
  const requiredMask = (target.required ?? []).reduce((m, name) => {
    const i = table.labels.indexOf(name);
    if (i < 0) throw new RangeError(`required row "${name}" is not in the table`);
    return m | (1 << i);
  }, 0);
  const xs = table.x[0].values;
  const ys = table.y.values;
  const found: string[][] = [];
  for (let mask = 1; mask < 1 << n; mask++) {
    if ((mask & requiredMask) !== requiredMask) continue;
    const idx: number[] = [];
    for (let i = 0; i < n; i++) if (mask & (1 << i)) idx.push(i);
    if (idx.length < minSize) continue;
    const { slope, p } = simpleSlope(idx.map((i) => xs[i]), idx.map((i) => ys[i]));
    if (round(slope) === round(target.slope) && round(p) === round(target.p)) found.push(idx.map((i) => table.labels[i]));
  }
  return found.sort((a, b) => b.length - a.length);
}

function fmt(v: number, width = 10): string {
  const s = !Number.isFinite(v) ? String(v) : Math.abs(v) !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e5) ? v.toExponential(3) : v.toFixed(4);
  return s.padStart(width);
}

/** A plain-text summary laid out like statsmodels' OLS summary. */
export function formatSummary(r: RegressionReport): string {
  const lines: string[] = [];
  const bar = '='.repeat(78);
  lines.push(bar);
  lines.push(`OLS regression of ${r.y_name} on ${r.x_names.join(', ')}`);
  lines.push(bar);
  lines.push(`No. observations: ${r.n}    Df residuals: ${r.df_resid}    Df model: ${r.df_model}`);
  lines.push(`R-squared: ${r.r2.toFixed(4)}    Adj. R-squared: ${r.adj_r2.toFixed(4)}`);
  lines.push(`F-statistic: ${r.f.toFixed(4)}    Prob (F-statistic): ${r.f_p.toPrecision(4)}`);
  lines.push('-'.repeat(78));
  const nameWidth = Math.max(12, ...r.coefficients.map((c) => c.name.length)) + 2;
  const lo = ((1 - r.ci_level) / 2).toFixed(3);
  const hi = (1 - (1 - r.ci_level) / 2).toFixed(3);
  lines.push(`${''.padEnd(nameWidth)}${'coef'.padStart(10)}${'std err'.padStart(10)}${'t'.padStart(10)}${'P>|t|'.padStart(10)}${`[${lo}`.padStart(10)}${`${hi}]`.padStart(10)}`);
  for (const c of r.coefficients) {
    lines.push(`${c.name.padEnd(nameWidth)}${fmt(c.estimate)}${fmt(c.se)}${fmt(c.t)}${fmt(c.p)}${fmt(c.ci[0])}${fmt(c.ci[1])}`);
  }
  lines.push(bar);
  lines.push(`Observations: ${r.labels.join(', ')}`);
  if (r.skipped.length > 0) lines.push(`Skipped: ${r.skipped.map((s) => `${s.label} (${s.reason})`).join('; ')}`);
  return lines.join('\n');
}
