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
 * Above this share of unreadable answers (no box read from a grounding answer; no option read from a
 * TG or MC answer; or no answer at all), a model's figure measures its answer format, not its
 * grounding or reasoning: regressions leave the model out and say so.
 */
export const UNREADABLE_SHARE = 0.5;
/** The same threshold under its first name (grounding answers without a box). */
export const NO_BOX_SHARE = UNREADABLE_SHARE;

/**
 * Why a model's G-Score for `spec` (its column, or every column for `avg`) is no measurement, or
 * null when it is one: more than {@link UNREADABLE_SHARE} of the objects got no box.
 */
export function groundingWithoutBoxes(results: ModelResults, spec: MetricSpec): string | null {
  const g = results.grounding;
  if (spec.kind !== 'grounding' || !g) return null;
  const { total: n, unparsed, missing } = countNoBox(spec.split === 'avg' ? Object.values(g.columns) : [g.columns[spec.split]].filter((c) => c !== undefined));
  if (n === 0 || (unparsed + missing) / n <= UNREADABLE_SHARE) return null;
  return `no box read from ${unparsed + missing} of ${n} grounding answers (${unparsed} unparsed, ${missing} missing)`;
}

/**
 * Why a model's reasoning figure for `spec` (its split, or every split for `total`) is no measurement,
 * or null when it is one: more than {@link UNREADABLE_SHARE} of the prompts got no answer an
 * extraction rule could read (reasoning.json's `unparsed` counts the missing ones too).
 */
export function reasoningUnreadable(results: ModelResults, spec: MetricSpec): string | null {
  if (spec.kind !== 'reasoning') return null;
  const v = results.reasoning.find((x) => x.variant === spec.variant)?.summary;
  if (!v) return null;
  const splits = spec.split === 'total' ? Object.values(v.splits) : [v.splits[spec.split]].filter((s) => s !== undefined);
  let prompts = 0;
  let unreadable = 0;
  let missing = 0;
  for (const s of splits) {
    const loose = s as { prompts?: unknown; missing?: unknown };
    prompts += typeof loose.prompts === 'number' ? loose.prompts : s.n;
    unreadable += s.unparsed ?? 0;
    missing += typeof loose.missing === 'number' ? loose.missing : 0;
  }
  if (prompts === 0 || unreadable / prompts <= UNREADABLE_SHARE) return null;
  const task = v.task ? v.task.toUpperCase() : 'reasoning';
  return `no option read from ${unreadable} of ${prompts} ${task} answers (${unreadable - missing} unparsed, ${missing} missing)`;
}

/** Why a model's figures for these metrics are no measurement (every reason, x's and y's), or null. */
export function unreadableReasons(results: ModelResults, specs: readonly MetricSpec[]): string | null {
  const reasons = [...new Set(specs.map((s) => groundingWithoutBoxes(results, s) ?? reasoningUnreadable(results, s)).filter((r): r is string => r !== null))];
  return reasons.length ? reasons.join('; ') : null;
}

/**
 * A regression table across models from their results: one row per model that has every metric;
 * models lacking one, or whose G-Score or reasoning figure rests on mostly unreadable answers
 * ({@link unreadableReasons}), are listed as skipped with why.
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
    const unreadable = unreadableReasons(r, [...xSpecs, ySpec]);
    if (unreadable) {
      table.skipped.push({ label: r.model, reason: unreadable });
      continue;
    }
    table.labels.push(r.model);
    table.y.values.push(yv as number);
    xv.forEach((v, j) => table.x[j].values.push(v as number));
  }
  return table;
}
