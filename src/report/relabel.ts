/**
 * Reading what `gsr analyze relabel` and the report's "pseudo-labels vs reviewed labels" section
 * need: the two annotation files and each results folder's grounding items.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { groundingWithoutBoxes, parseMetric, metricValue } from '../analysis/metrics.js';
import { regressionShift, relabelModel, truthBoxes, type RegressionShift, type RelabelModel } from '../analysis/relabel.js';
import type { GroundingItemRecord, ModelResults } from '../analysis/results-types.js';
import { readCocoFile } from '../formats/coco.js';
import { GsrError } from '../util/errors.js';
import { readJsonFile, readJsonlAll } from '../util/jsonl.js';

export interface RelabelReport {
  before: string;
  after: string;
  models: RelabelModel[];
  regression: RegressionShift;
  /** Results folders without grounding-items.jsonl. */
  skipped: string[];
  /** Models left out of the regression, with why (their G-Score is no measurement). */
  left_out: { label: string; reason: string }[];
}

/**
 * Re-scores every results folder's grounding items against `before` and `after`, and fits the
 * regression of `y` on the `x` G-Score (`grounding:avg` or `grounding:<split>/<role>`) both ways.
 */
export async function relabelResults(results: ModelResults[], before: string, after: string, options: { y: string; x?: string; resamples?: number; seed?: number }): Promise<RelabelReport> {
  const [b, a] = [truthBoxes(await readCocoFile(before)), truthBoxes(await readCocoFile(after))];
  const x = options.x ?? 'grounding:avg';
  let ySpec;
  let xSpec;
  try {
    ySpec = parseMetric(options.y);
    xSpec = parseMetric(x);
  } catch (err) {
    throw new GsrError((err as Error).message);
  }
  if (xSpec.kind !== 'grounding') throw new GsrError(`the relabel regressor must be a G-Score (grounding:avg or grounding:<split>/<role>), got "${x}"`);
  const models: RelabelModel[] = [];
  const rows = [];
  const skipped: string[] = [];
  const leftOut: RelabelReport['left_out'] = [];
  for (const r of results) {
    const itemsPath = join(r.dir, 'grounding-items.jsonl');
    if (!existsSync(itemsPath)) {
      skipped.push(r.dir);
      continue;
    }
    const summaryPath = join(r.dir, 'grounding.json');
    const summary = existsSync(summaryPath) ? await readJsonFile<{ model?: string; iou_threshold?: number }>(summaryPath) : {};
    const m = relabelModel(summary.model ?? r.model, await readJsonlAll<GroundingItemRecord>(itemsPath), b, a, summary.iou_threshold ?? 0.5, options);
    models.push(m);
    const pick = (which: 'before' | 'after') => (xSpec.split === 'avg' ? (which === 'before' ? m.avg_before : m.avg_after) : (m.columns[xSpec.split]?.[which] ?? null));
    const y = metricValue(r, ySpec);
    const [xb, xa] = [pick('before'), pick('after')];
    const noBoxes = groundingWithoutBoxes(r, xSpec) ?? groundingWithoutBoxes(r, ySpec);
    if (noBoxes) leftOut.push({ label: m.model, reason: noBoxes });
    else if (y !== null && xb !== null && xa !== null) rows.push({ model: m.model, y, before: xb, after: xa });
  }
  return { before, after, models, regression: regressionShift(options.y, x, rows), skipped, left_out: leftOut };
}
