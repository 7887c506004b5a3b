/**
 * The paper's table layouts as CSV text (csv-stringify). Pure: results in, text out.
 * Table 1: one row per model and task; per split a circular and a vanilla column, then the Total
 * Average. Table 2: the model's G-Score per split/role column and Avg G-Score, with its objects and
 * the answers that gave no box beside it (`objects`, `unparsed`, `missing`: counts), then the
 * detector's rows (mean confidence, share >= 0.5). Values are fractions in 0..1, rounded to 4 decimals.
 */
import { stringify } from 'csv-stringify/sync';
import type { GroundingResult } from './grounding.js';
import type { ReasoningResult } from './reasoning.js';
import { groundingUnparsed } from './unparsed.js';

const cell = (v: number | null | undefined) => (v === null || v === undefined ? '' : Number(v.toFixed(4)));

/** Table 1 layout for one model. */
export function reasoningCsv(r: ReasoningResult): string {
  const splits = Object.keys(r.splits);
  const header = ['model', 'task', ...splits.flatMap((s) => [`${s} circular`, `${s} vanilla`]), 'total_average circular', 'total_average vanilla'];
  const row = [
    r.model,
    r.task,
    ...splits.flatMap((s) => [cell(r.splits[s].circular), cell(r.splits[s].vanilla)]),
    cell(r.total_average.circular),
    cell(r.total_average.vanilla),
  ];
  return stringify([header, row]);
}

/** Table 2 layout for one model, with the detector's two rows. */
export function groundingCsv(g: GroundingResult): string {
  const cols = Object.keys(g.columns);
  const header = ['row', ...cols, 'avg_g_score', 'objects', 'unparsed', 'missing', 'no_label'];
  const count = groundingUnparsed(g);
  const detMean = cols.map((c) => g.detector.columns[c]?.mean_confidence ?? null);
  const detShare = cols.map((c) => g.detector.columns[c]?.share_confident ?? null);
  const avg = (vs: Array<number | null>) => {
    const xs = vs.filter((v): v is number => v !== null);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  };
  return stringify([
    header,
    [g.model, ...cols.map((c) => cell(g.columns[c].accuracy)), cell(g.avg_g_score), count.total, count.unparsed, count.missing, count.no_label],
    ['detector mean confidence', ...detMean.map(cell), cell(avg(detMean)), '', '', '', ''],
    ['detector share confidence >= 0.5', ...detShare.map(cell), cell(avg(detShare)), '', '', '', ''],
  ]);
}
