/**
 * Annotation quality against exact ground truth (pure): predicted and true annotations are paired
 * by manifest item id and role. Reports box IoU (distribution, recall at 0.5), mask IoU, depth
 * ordering agreement between subject and object, and AbsRel when both sides are metric.
 */
import { boxIou, xywhToXyxy } from '../geometry/boxes.js';
import { rleIou } from '../geometry/mask-iou.js';
import type { CocoAnnotation, CocoFile, ObjectDepth } from '../formats/coco.js';
import { quantileSorted } from '../util/stats.js';

export interface Distribution {
  n: number;
  mean: number | null;
  min: number | null;
  p10: number | null;
  p25: number | null;
  median: number | null;
  p75: number | null;
  p90: number | null;
  max: number | null;
  /** Counts in ten bins [0, 0.1), ..., [0.9, 1.0]. */
  histogram: number[];
}

export interface QualityReport {
  /** Truth images, those with a predicted image record, and truth objects. */
  images: { truth: number; predicted: number; not_predicted: number };
  objects: { truth: number; predicted: number; not_predicted: number };
  /** IoU of each predicted box with its true box. */
  box_iou: Distribution;
  /** Share of true objects whose predicted box has IoU >= 0.5 (a missing box is a miss). */
  recall_at_50: number | null;
  recall_at_50_by_role: { subject: number | null; object: number | null };
  /** Mask IoU where both sides have a mask of the same size. */
  mask_iou: Distribution;
  depth_order: {
    /** Subject-object pairs with depth on both sides and an order in the truth (DEPTH_ORDER_MARGIN). */
    pairs: number;
    agree: number;
    agreement: number | null;
    /** Pairs with depth on both sides whose true depths are within the margin: no order, not scored. */
    unordered: number;
    margin: number;
  };
  /** Mean |pred - true| / true of per-object median depth; only when both are metric. */
  depth_absrel: { n: number; value: number | null; skipped_reason?: string };
}

/** Summary statistics and a ten-bin histogram of values in [0, 1]. */
export function distribution(values: number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const histogram = new Array<number>(10).fill(0);
  for (const v of sorted) histogram[Math.min(9, Math.max(0, Math.floor(v * 10)))]++;
  const q = (p: number) => (n ? quantileSorted(sorted, p) : null);
  return {
    n,
    mean: n ? sorted.reduce((s, v) => s + v, 0) / n : null,
    min: n ? sorted[0] : null,
    p10: q(0.1),
    p25: q(0.25),
    median: q(0.5),
    p75: q(0.75),
    p90: q(0.9),
    max: n ? sorted[n - 1] : null,
    histogram,
  };
}

/**
 * Two objects whose true depths differ by less than this share of the nearer one's have no depth
 * order: an object on, under or beside a piece of furniture stands at nearly its depth, and which
 * of the two medians is nearer there says nothing a depth model can see (docs/perception.md,
 * "Which pairs have a depth order"). The same margin as ORDER_MARGIN in training/gsr_synth.py.
 */
export const DEPTH_ORDER_MARGIN = 0.05;

/** Whether two true depths (either direction; relative-inverse values are 1 / depth up to a scale) have an order. */
export function depthsOrdered(a: ObjectDepth, b: ObjectDepth, margin = DEPTH_ORDER_MARGIN): boolean {
  const [x, y] = [a.median, b.median];
  // A relative margin needs positive values; anything else is ordered by a strict difference.
  if (!(x > 0 && y > 0)) return x !== y;
  // |1/x - 1/y| / min(1/x, 1/y) = |x - y| / min(x, y): the same rule for depth and inverse depth.
  return x !== y && Math.abs(x - y) >= margin * Math.min(x, y);
}

/** Depth as "nearness" (larger = nearer), so maps of either direction compare. */
function nearness(d: ObjectDepth): number {
  return d.unit === 'm' ? -d.median : d.median;
}

type Role = CocoAnnotation['role'];

function byItemAndRole(file: CocoFile): Map<string, { width: number; height: number; roles: Map<Role, CocoAnnotation> }> {
  const itemOfImage = new Map<number, string>();
  const out = new Map<string, { width: number; height: number; roles: Map<Role, CocoAnnotation> }>();
  for (const img of file.images) {
    itemOfImage.set(img.id, img.item_id);
    out.set(img.item_id, { width: img.width, height: img.height, roles: new Map() });
  }
  for (const ann of file.annotations) {
    const item = itemOfImage.get(ann.image_id);
    const entry = item === undefined ? undefined : out.get(item);
    // One annotation per role; extra ones (e.g. from other tools) after the first are ignored.
    if (entry && !entry.roles.has(ann.role)) entry.roles.set(ann.role, ann);
  }
  return out;
}

/** Compares predicted annotations with the exact truth. */
export function annotationQuality(pred: CocoFile, truth: CocoFile): QualityReport {
  const predItems = byItemAndRole(pred);
  const truthItems = byItemAndRole(truth);
  const boxIous: number[] = [];
  const maskIous: number[] = [];
  const hits: Record<Role, [number, number]> = { subject: [0, 0], object: [0, 0] };
  let predictedImages = 0;
  let predictedObjects = 0;
  let truthObjects = 0;
  let pairs = 0;
  let agree = 0;
  let unordered = 0;
  const absRel: number[] = [];
  let nonMetric = false;

  for (const [itemId, t] of truthItems) {
    const p = predItems.get(itemId);
    if (p) predictedImages++;
    for (const [role, ta] of t.roles) {
      truthObjects++;
      hits[role][1]++;
      const pa = p?.roles.get(role);
      if (!pa) continue;
      predictedObjects++;
      const iou = boxIou(xywhToXyxy(pa.bbox), xywhToXyxy(ta.bbox));
      boxIous.push(iou);
      if (iou >= 0.5) hits[role][0]++;
      const ps = pa.segmentation;
      const ts = ta.segmentation;
      if (ps && ts && ps.size[0] === ts.size[0] && ps.size[1] === ts.size[1]) maskIous.push(rleIou(ps, ts));
      if (pa.depth && ta.depth) {
        if (pa.depth.unit === 'm' && ta.depth.unit === 'm') {
          if (ta.depth.median > 0) absRel.push(Math.abs(pa.depth.median - ta.depth.median) / ta.depth.median);
        } else nonMetric = true;
      }
    }
    const [ts, to] = [t.roles.get('subject')?.depth, t.roles.get('object')?.depth];
    const [ps, po] = [p?.roles.get('subject')?.depth, p?.roles.get('object')?.depth];
    if (ts && to && ps && po && !depthsOrdered(ts, to)) unordered++;
    else if (ts && to && ps && po) {
      pairs++;
      // A tie in the prediction orders nothing, so it does not agree.
      if (Math.sign(nearness(ts) - nearness(to)) === Math.sign(nearness(ps) - nearness(po))) agree++;
    }
  }
  const rate = ([h, n]: [number, number]) => (n > 0 ? h / n : null);
  const totalHits = hits.subject[0] + hits.object[0];
  return {
    images: { truth: truthItems.size, predicted: predictedImages, not_predicted: truthItems.size - predictedImages },
    objects: { truth: truthObjects, predicted: predictedObjects, not_predicted: truthObjects - predictedObjects },
    box_iou: distribution(boxIous),
    recall_at_50: truthObjects > 0 ? totalHits / truthObjects : null,
    recall_at_50_by_role: { subject: rate(hits.subject), object: rate(hits.object) },
    mask_iou: distribution(maskIous),
    depth_order: { pairs, agree, agreement: pairs > 0 ? agree / pairs : null, unordered, margin: DEPTH_ORDER_MARGIN },
    depth_absrel: {
      n: absRel.length,
      value: absRel.length ? absRel.reduce((s, v) => s + v, 0) / absRel.length : null,
      ...(absRel.length === 0 && nonMetric ? { skipped_reason: 'predicted or true depth is relative, not metric' } : {}),
    },
  };
}

const fmt = (v: number | null, digits = 3) => (v === null ? 'n/a' : v.toFixed(digits));

/** The report as a short human-readable text. */
export function formatQualityReport(r: QualityReport): string {
  const dist = (name: string, d: Distribution) =>
    `${name}: n=${d.n} mean=${fmt(d.mean)} p10=${fmt(d.p10)} median=${fmt(d.median)} p90=${fmt(d.p90)} min=${fmt(d.min)} max=${fmt(d.max)}`;
  return [
    `images: ${r.images.truth} in truth, ${r.images.predicted} predicted, ${r.images.not_predicted} missing`,
    `objects: ${r.objects.truth} in truth, ${r.objects.predicted} with a box, ${r.objects.not_predicted} not found`,
    dist('box IoU', r.box_iou),
    `recall@0.5: ${fmt(r.recall_at_50)} (subject ${fmt(r.recall_at_50_by_role.subject)}, object ${fmt(r.recall_at_50_by_role.object)})`,
    dist('mask IoU', r.mask_iou),
    `depth order agreement: ${fmt(r.depth_order.agreement)} (${r.depth_order.agree}/${r.depth_order.pairs} pairs; ${r.depth_order.unordered} within ${100 * r.depth_order.margin}% of each other: no order)`,
    `depth AbsRel: ${fmt(r.depth_absrel.value)} (n=${r.depth_absrel.n}${r.depth_absrel.skipped_reason ? `; ${r.depth_absrel.skipped_reason}` : ''})`,
  ].join('\n');
}
