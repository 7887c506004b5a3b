/**
 * G-Scores re-scored against corrected labels: each model's parsed boxes (grounding-items.jsonl)
 * are compared with the boxes of the file before review and of the file after it, with the same
 * rule as scoring (IoU >= threshold against the best-scoring annotation per item and role), so the
 * "after" figures equal `gsr score grounding` against the reviewed file. Pure.
 */
import type { CocoFile } from '../formats/coco.js';
import { boxIou, xywhToXyxy, type Box } from '../geometry/boxes.js';
import { bootstrapMean, bootstrapMeanOfMeans, type BootstrapInterval } from './bootstrap.js';
import { ols } from './ols.js';
import type { GroundingItemRecord } from './results-types.js';

export interface RelabelColumn {
  /** Objects scored against each file (an object without a label in a file is not scored there). */
  n_before: number;
  n_after: number;
  before: number | null;
  after: number | null;
  /** after - before over the objects labelled in both, with a paired bootstrap interval. */
  delta: BootstrapInterval | null;
  /** Objects whose hit/miss changed. */
  flipped: number;
}

export interface RelabelModel {
  model: string;
  iou_threshold: number;
  columns: Record<string, RelabelColumn>;
  avg_before: number | null;
  avg_after: number | null;
  /** Interval of the after Avg G-Score (resampling objects within columns). */
  avg_after_ci: BootstrapInterval | null;
  /** Items records with no parsed box field to re-score (counted, scored as misses). */
  without_box: number;
}

export interface RelabelOptions {
  resamples?: number;
  seed?: number;
}

type Truth = Map<string, Box>;

/** Best-scoring annotation box per `item/role`, as scoring picks it. */
export function truthBoxes(coco: CocoFile): Truth {
  const itemOf = new Map(coco.images.map((i) => [i.id, i.item_id]));
  const best = new Map<string, { score: number; box: Box }>();
  for (const a of coco.annotations) {
    const item = itemOf.get(a.image_id);
    if (item === undefined) continue;
    const key = `${item}/${a.role}`;
    const cur = best.get(key);
    const score = typeof a.score === 'number' ? a.score : 0;
    if (!cur || score > cur.score) best.set(key, { score, box: xywhToXyxy(a.bbox) });
  }
  return new Map([...best].map(([k, v]) => [k, v.box]));
}

function parsedBox(r: GroundingItemRecord): Box | null {
  const b = r.box as unknown;
  return Array.isArray(b) && b.length === 4 && b.every((v) => typeof v === 'number' && Number.isFinite(v)) ? (b as Box) : null;
}

const hitOf = (box: Box | null, gt: Box | undefined, threshold: number) => (gt === undefined ? undefined : box !== null && boxIou(box, gt) >= threshold);

/** Re-scores one model's grounding items against the labels before and after review. */
export function relabelModel(model: string, items: readonly GroundingItemRecord[], before: Truth, after: Truth, threshold: number, options: RelabelOptions = {}): RelabelModel {
  const groups = new Map<string, { before: number[]; after: number[]; paired: number[]; flipped: number }>();
  let withoutBox = 0;
  for (const r of items) {
    const key = `${r.item}/${r.role}`;
    const box = parsedBox(r);
    if (box === null && r.box === undefined) withoutBox++;
    const hb = hitOf(box, before.get(key), threshold);
    const ha = hitOf(box, after.get(key), threshold);
    const col = `${r.split}/${r.role}`;
    const g = groups.get(col) ?? groups.set(col, { before: [], after: [], paired: [], flipped: 0 }).get(col)!;
    if (hb !== undefined) g.before.push(hb ? 1 : 0);
    if (ha !== undefined) g.after.push(ha ? 1 : 0);
    if (hb !== undefined && ha !== undefined) {
      g.paired.push((ha ? 1 : 0) - (hb ? 1 : 0));
      if (ha !== hb) g.flipped++;
    }
  }
  const meanOf = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : null);
  const boot = { resamples: options.resamples ?? 2000, seed: options.seed ?? 0 };
  const columns: Record<string, RelabelColumn> = {};
  for (const [col, g] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    columns[col] = {
      n_before: g.before.length,
      n_after: g.after.length,
      before: meanOf(g.before),
      after: meanOf(g.after),
      delta: g.paired.length ? bootstrapMean(g.paired, boot) : null,
      flipped: g.flipped,
    };
  }
  const avg = (pick: 'before' | 'after') => meanOf(Object.values(columns).map((c) => c[pick]).filter((v): v is number => v !== null));
  const afterGroups = [...groups.values()].map((g) => g.after).filter((g) => g.length > 0);
  return {
    model,
    iou_threshold: threshold,
    columns,
    avg_before: avg('before'),
    avg_after: avg('after'),
    avg_after_ci: afterGroups.length ? bootstrapMeanOfMeans(afterGroups, boot) : null,
    without_box: withoutBox,
  };
}

export interface RegressionShift {
  y: string;
  x: string;
  models: string[];
  before: { slope: number; p: number; r2: number } | null;
  after: { slope: number; p: number; r2: number } | null;
  /** Whether the slope's significance at 0.05 is the same before and after. */
  same_conclusion: boolean | null;
}

/** OLS of a reasoning metric on a G-Score before and after review, across models (needs 3 or more). */
export function regressionShift(y: string, x: string, rows: Array<{ model: string; y: number; before: number; after: number }>): RegressionShift {
  const fit = (xs: number[]) => {
    if (rows.length < 3) return null;
    try {
      const r = ols(rows.map((r) => r.y), { [x]: xs });
      const c = r.coefficients.find((k) => k.name === x)!;
      return { slope: c.estimate, p: c.p, r2: r.r2 };
    } catch {
      return null;
    }
  };
  const before = fit(rows.map((r) => r.before));
  const after = fit(rows.map((r) => r.after));
  return {
    y,
    x,
    models: rows.map((r) => r.model),
    before,
    after,
    same_conclusion: before && after ? before.p < 0.05 === after.p < 0.05 && Math.sign(before.slope) === Math.sign(after.slope) : null,
  };
}
