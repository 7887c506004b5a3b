/**
 * Reading what `gsr analyze relabel` and the report's "pseudo-labels vs reviewed labels" section
 * need: the two annotation files and each results folder's grounding items.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseMetric, metricValue, unreadableReasons } from '../analysis/metrics.js';
import { regressionShift, relabelModel, responsesFromItems, scoringOptionsOf, type RegressionShift, type RelabelModel } from '../analysis/relabel.js';
import type { GroundingItemRecord, ModelResults } from '../analysis/results-types.js';
import { readCocoFile } from '../formats/coco.js';
import { indexGroundTruth, type GroundingResult } from '../scoring/grounding.js';
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
  /** What the re-score could not do as scoring does, one line per model (e.g. answers the folder did not keep). */
  warnings: string[];
}

/**
 * Re-scores every results folder's answers against `before` and `after` with the options it was scored
 * with, and fits the regression of `y` on the `x` G-Score (`grounding:avg` or `grounding:<split>/<role>`) both ways.
 */
export async function relabelResults(results: ModelResults[], before: string, after: string, options: { y: string; x?: string; resamples?: number; seed?: number }): Promise<RelabelReport> {
  const [b, a] = [indexGroundTruth(await readCocoFile(before)), indexGroundTruth(await readCocoFile(after))];
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
  const warnings: string[] = [];
  for (const r of results) {
    const itemsPath = join(r.dir, 'grounding-items.jsonl');
    if (!existsSync(itemsPath)) {
      skipped.push(r.dir);
      continue;
    }
    const summaryPath = join(r.dir, 'grounding.json');
    const summary = existsSync(summaryPath) ? await readJsonFile<Partial<GroundingResult>>(summaryPath) : {};
    const model = summary.model ?? r.model;
    // The answers' text, read as scoring read it; a folder that does not say how (no box_format): the parsed boxes.
    const fromOutput = typeof summary.box_format === 'string';
    const scoring = fromOutput ? scoringOptionsOf(summary) : { ...scoringOptionsOf(summary), boxFormat: 'pixels' as const };
    if (!fromOutput) warnings.push(`${model}: ${summaryPath} names no box_format: re-scored from the parsed boxes in grounding-items.jsonl`);
    let m: RelabelModel;
    try {
      const items = await readJsonlAll<GroundingItemRecord>(itemsPath);
      m = relabelModel(model, responsesFromItems(model, items, fromOutput), b, a, scoring, options, new Set(items.map((i) => `${i.item}/${i.role}`)));
    } catch (err) {
      throw new GsrError(`${r.dir}: ${(err as Error).message}`);
    }
    if (m.unanswered_after > 0) {
      warnings.push(`${model}: ${m.unanswered_after} objects labelled only after review have no record in ${itemsPath} (scored as missing); score the answers again (gsr score grounding) to keep the answers about unlabelled objects`);
    }
    models.push(m);
    const pick = (which: 'before' | 'after') => (xSpec.split === 'avg' ? (which === 'before' ? m.avg_before : m.avg_after) : (m.columns[xSpec.split]?.[which] ?? null));
    const y = metricValue(r, ySpec);
    const [xb, xa] = [pick('before'), pick('after')];
    const noBoxes = unreadableReasons(r, [xSpec, ySpec]);
    if (noBoxes) leftOut.push({ label: m.model, reason: noBoxes });
    else if (y !== null && xb !== null && xa !== null) rows.push({ model: m.model, y, before: xb, after: xa });
  }
  return { before, after, models, regression: regressionShift(options.y, x, rows), skipped, left_out: leftOut, warnings };
}
