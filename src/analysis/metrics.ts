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
 * A regression table across models from their results: one row per model that has every metric;
 * models lacking one are listed as skipped.
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
    table.labels.push(r.model);
    table.y.values.push(yv as number);
    xv.forEach((v, j) => table.x[j].values.push(v as number));
  }
  return table;
}
