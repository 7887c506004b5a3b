import { parse } from 'csv-parse/sync';
import { ols, tTwoSidedP, type OlsResult } from './ols.js';
import { formatP } from '../util/stats.js';

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

function parseCsv(text: string, source: string): Record<string, string>[] {
  try {
    return parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (err) {
    throw new RangeError(`${source}: malformed CSV (${(err as Error).message})`);
  }
}

/** Rows with an empty or non-numeric y/x cell are skipped and listed. */
function buildTable(rows: { label: string; cells: string[] }[], yName: string, xNames: string[]): RegressionTable {
  const names = [yName, ...xNames];
  const table: RegressionTable = { labels: [], y: { name: yName, values: [] }, x: xNames.map((name) => ({ name, values: [] })), skipped: [] };
  for (const { label, cells } of rows) {
    const bad = cells.findIndex((v) => v === '' || !Number.isFinite(Number(v)));
    if (bad >= 0) {
      table.skipped.push({ label, reason: `${names[bad]} is ${cells[bad] === '' ? 'empty' : `"${cells[bad]}"`}` });
      continue;
    }
    table.labels.push(label);
    table.y.values.push(Number(cells[0]));
    xNames.forEach((_, j) => table.x[j].values.push(Number(cells[j + 1])));
  }
  return table;
}

/**
 * Builds a regression table from CSV text. The label column is `--label` or the first column that is
 * neither y nor an x.
 */
export function tableFromCsv(text: string, yCol: string, xCols: string[], labelCol?: string, source = 'CSV'): RegressionTable {
  const rows = parseCsv(text, source);
  const header = rows.length > 0 ? Object.keys(rows[0]) : [];
  for (const c of [yCol, ...xCols]) {
    if (!header.includes(c)) throw new RangeError(`${source}: no column "${c}" (columns: ${header.join(', ')})`);
  }
  if (labelCol !== undefined && !header.includes(labelCol)) throw new RangeError(`${source}: no label column "${labelCol}"`);
  const label = labelCol ?? header.find((h) => h !== yCol && !xCols.includes(h));
  const cols = [yCol, ...xCols];
  return buildTable(
    rows.map((row, i) => ({ label: label !== undefined && row[label] ? row[label] : `row ${i + 2}`, cells: cols.map((c) => row[c] ?? '') })),
    yCol,
    xCols,
  );
}

/** One CSV among several joined on a label column. */
export interface CsvSource {
  text: string;
  /** File name, for messages and for qualifying a column found in several files (`<stem>:<column>`). */
  source: string;
}

/**
 * Builds a regression table from several CSVs joined on `labelCol` (inner join: a row is a label found
 * in every file; default: the first file's first column). A column is named bare when one file has it,
 * else `<file stem>:<column>`. One file is read as by `tableFromCsv`.
 */
export function tableFromCsvs(files: CsvSource[], yCol: string, xCols: string[], labelCol?: string): RegressionTable {
  if (files.length === 1) return tableFromCsv(files[0].text, yCol, xCols, labelCol, files[0].source);
  let label = labelCol;
  const parsed = files.map((f) => {
    const rows = parseCsv(f.text, f.source);
    const header = rows.length > 0 ? Object.keys(rows[0]) : [];
    label ??= header[0];
    const labelCol = label ?? '';
    if (!header.includes(labelCol)) throw new RangeError(`${f.source}: no label column "${labelCol}"`);
    const stem = f.source.replace(/^.*[\\/]/, '').replace(/\.csv$/i, '');
    return { stem, header, byLabel: new Map(rows.map((r) => [r[labelCol], r])) };
  });
  const resolve = (name: string): { file: number; column: string } => {
    const at = name.indexOf(':');
    const file = at > 0 ? parsed.findIndex((p) => p.stem === name.slice(0, at)) : -1;
    if (file >= 0 && parsed[file].header.includes(name.slice(at + 1))) return { file, column: name.slice(at + 1) };
    const holders = parsed.flatMap((p, i) => (p.header.includes(name) ? [i] : []));
    if (holders.length === 0) throw new RangeError(`no column "${name}" in ${files.map((f) => f.source).join(', ')}`);
    if (holders.length > 1) throw new RangeError(`column "${name}" is in several files: write ${holders.map((i) => `${parsed[i].stem}:${name}`).join(' or ')}`);
    return { file: holders[0], column: name };
  };
  const cols = [yCol, ...xCols].map(resolve);
  const labels = [...parsed[0].byLabel.keys()].filter((l) => parsed.every((p) => p.byLabel.has(l)));
  return buildTable(
    labels.map((label) => ({ label, cells: cols.map((c) => parsed[c.file].byLabel.get(label)![c.column] ?? '') })),
    yCol,
    xCols,
  );
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
  lines.push(`F-statistic: ${r.f.toFixed(4)}    Prob (F-statistic): ${formatP(r.f_p)}`);
  lines.push('-'.repeat(78));
  const nameWidth = Math.max(12, ...r.coefficients.map((c) => c.name.length)) + 2;
  const lo = ((1 - r.ci_level) / 2).toFixed(3);
  const hi = (1 - (1 - r.ci_level) / 2).toFixed(3);
  lines.push(`${''.padEnd(nameWidth)}${'coef'.padStart(10)}${'std err'.padStart(10)}${'t'.padStart(10)}${'P>|t|'.padStart(10)}${`[${lo}`.padStart(10)}${`${hi}]`.padStart(10)}`);
  for (const c of r.coefficients) {
    lines.push(`${c.name.padEnd(nameWidth)}${fmt(c.estimate)}${fmt(c.se)}${fmt(c.t)}${formatP(c.p).padStart(10)}${fmt(c.ci[0])}${fmt(c.ci[1])}`);
  }
  lines.push(bar);
  lines.push(`Observations: ${r.labels.join(', ')}`);
  if (r.skipped.length > 0) lines.push(`Skipped: ${r.skipped.map((s) => `${s.label} (${s.reason})`).join('; ')}`);
  return lines.join('\n');
}
