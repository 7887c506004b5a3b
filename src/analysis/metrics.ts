import { countNoBox } from '../scoring/unparsed.js';
import type { ModelResults } from './results-types.js';

/**
 * A metric read from a model's results, named as on the command line:
 * - `reasoning:<split>:circular|vanilla` (e.g. `reasoning:whatsup-a:circular`); split `total` = Total Average;
 *   an optional 4th part names a variant subfolder (`reasoning:whatsup-b:circular:dap`);
 * - `grounding:<split>/<role>` (e.g. `grounding:whatsup-a/subject`), or `grounding:avg` = Avg G-Score.
 */
export interface MetricSpec {
  kind: 'reasoning' | 'grounding';
  split: string;
  measure: string;
  variant: string;
}

export function parseMetric(text: string): MetricSpec {
  const parts = text.split(':');
  if (parts[0] === 'reasoning' && (parts.length === 3 || parts.length === 4) && ['circular', 'vanilla'].includes(parts[2])) {
    return { kind: 'reasoning', split: parts[1], measure: parts[2], variant: parts[3] ?? '' };
  }
  if (parts[0] === 'grounding' && parts.length === 2 && parts[1] !== '') {
    return { kind: 'grounding', split: parts[1], measure: 'accuracy', variant: '' };
  }
  throw new RangeError(
    `bad metric "${text}": use reasoning:<split>:circular|vanilla[:<variant>] or grounding:<split>/<role> or grounding:avg`,
  );
}

/** The metric's value for one model, or null when that model's results lack it. */
export function metricValue(results: ModelResults, spec: MetricSpec): number | null {
  if (spec.kind === 'grounding') {
    const g = results.grounding;
    if (!g) return null;
    if (spec.split === 'avg') return typeof g.avg_g_score === 'number' ? g.avg_g_score : null;
    const col = g.columns[spec.split];
    return col && typeof col.accuracy === 'number' ? col.accuracy : null;
  }
  const variant = results.reasoning.find((v) => v.variant === spec.variant)?.summary;
  if (!variant) return null;
  const measure = spec.measure as 'circular' | 'vanilla';
  if (spec.split === 'total') {
    const v = variant.total_average?.[measure];
    return typeof v === 'number' ? v : null;
  }
  const s = variant.splits[spec.split];
  return s && typeof s[measure] === 'number' ? s[measure] : null;
}

/**
 * Above this share of grounding answers without a box (unparsed, or never answered), a model's
 * G-Score measures its answer format, not its grounding: regressions leave the model out and say so.
 */
export const NO_BOX_SHARE = 0.5;

/**
 * Why a model's G-Score for `spec` (its column, or every column for `avg`) is no measurement, or
 * null when it is one: more than {@link NO_BOX_SHARE} of the objects got no box.
 */
export function groundingWithoutBoxes(results: ModelResults, spec: MetricSpec): string | null {
  const g = results.grounding;
  if (spec.kind !== 'grounding' || !g) return null;
  const { total: n, unparsed, missing } = countNoBox(spec.split === 'avg' ? Object.values(g.columns) : [g.columns[spec.split]].filter((c) => c !== undefined));
  if (n === 0 || (unparsed + missing) / n <= NO_BOX_SHARE) return null;
  return `no box read from ${unparsed + missing} of ${n} grounding answers (${unparsed} unparsed, ${missing} missing)`;
}

/**
 * A regression table across models from their results: one row per model that has every metric;
 * models lacking one, or whose G-Score is no measurement ({@link groundingWithoutBoxes}), are listed
 * as skipped with why.
 */
export function tableFromResults(results: ModelResults[], y: string, xs: string[]): import('./regression.js').RegressionTable {
  const ySpec = parseMetric(y);
  const xSpecs = xs.map(parseMetric);
  const table = { labels: [] as string[], y: { name: y, values: [] as number[] }, x: xs.map((name) => ({ name, values: [] as number[] })), skipped: [] as { label: string; reason: string }[] };
  for (const r of results) {
    const yv = metricValue(r, ySpec);
    const xv = xSpecs.map((s) => metricValue(r, s));
    const missing = [yv, ...xv].findIndex((v) => v === null);
    if (missing >= 0) {
      table.skipped.push({ label: r.model, reason: `no ${[y, ...xs][missing]}` });
      continue;
    }
    const noBoxes = [ySpec, ...xSpecs].map((s) => groundingWithoutBoxes(r, s)).find((w) => w !== null);
    if (noBoxes) {
      table.skipped.push({ label: r.model, reason: noBoxes });
      continue;
    }
    table.labels.push(r.model);
    table.y.values.push(yv as number);
    xv.forEach((v, j) => table.x[j].values.push(v as number));
  }
  return table;
}
