/**
 * Agreement between two reviewed annotation files over the labels both reviewed: box IoU
 * distribution, Cohen's kappa of keep/remove decisions, and the disagreements for adjudication. Pure.
 */
import type { CocoFile } from '../formats/coco.js';
import { cohenKappa, type KappaResult } from '../analysis/agreement.js';
import { quantileSorted } from '../util/stats.js';
import { boxIou, xywhToXyxy, type Box } from '../geometry/boxes.js';

type Decision = { kind: 'keep'; box: Box; source: string; reviewer: string | null } | { kind: 'remove'; reason: string; reviewer: string | null };

interface Reviewed {
  phrase: string;
  decision: Decision;
}

/** The human decisions in a reviewed file, by `item/role` (labels left as the model made them are skipped). */
export function reviewedDecisions(coco: CocoFile): Map<string, Reviewed> {
  const out = new Map<string, Reviewed>();
  const itemOf = new Map(coco.images.map((i) => [i.id, i.item_id]));
  for (const a of coco.annotations as Array<CocoFile['annotations'][number] & { review?: { source?: string; reviewer?: string | null } }>) {
    const source = a.review?.source;
    const item = itemOf.get(a.image_id);
    if (!source || source === 'model' || item === undefined) continue;
    out.set(`${item}/${a.role}`, { phrase: a.phrase, decision: { kind: 'keep', box: xywhToXyxy(a.bbox), source, reviewer: a.review?.reviewer ?? null } });
  }
  for (const image of coco.images) {
    for (const m of (image.missing ?? []) as Array<{ role: string; phrase: string; reason: string; review?: { reviewer?: string | null } }>) {
      if (!m.review) continue;
      out.set(`${image.item_id}/${m.role}`, { phrase: m.phrase, decision: { kind: 'remove', reason: m.reason, reviewer: m.review.reviewer ?? null } });
    }
  }
  return out;
}

export interface Disagreement {
  key: string;
  phrase: string;
  a: Decision;
  b: Decision;
  /** IoU of the two boxes when both kept the label. */
  iou: number | null;
  why: 'decision' | 'box';
}

export interface AgreementSummary {
  /** Labels both files reviewed. */
  n: number;
  only_a: number;
  only_b: number;
  kappa: KappaResult;
  /** IoU of the boxes where both kept the label. */
  iou: { n: number; mean: number | null; p10: number | null; median: number | null; p90: number | null; at_least: Record<string, number | null> };
  disagreements: Disagreement[];
}

/** Compares two reviewed files; boxes below `iouThreshold` (default 0.5) count as a disagreement. */
export function reviewAgreement(a: CocoFile, b: CocoFile, iouThreshold = 0.5): AgreementSummary {
  const da = reviewedDecisions(a);
  const db = reviewedDecisions(b);
  const keys = [...da.keys()].filter((k) => db.has(k)).sort();
  const ious: number[] = [];
  const disagreements: Disagreement[] = [];
  for (const key of keys) {
    const x = da.get(key)!;
    const y = db.get(key)!;
    if (x.decision.kind !== y.decision.kind) {
      disagreements.push({ key, phrase: x.phrase, a: x.decision, b: y.decision, iou: null, why: 'decision' });
    } else if (x.decision.kind === 'keep' && y.decision.kind === 'keep') {
      const iou = boxIou(x.decision.box, y.decision.box);
      ious.push(iou);
      if (iou < iouThreshold) disagreements.push({ key, phrase: x.phrase, a: x.decision, b: y.decision, iou, why: 'box' });
    }
  }
  const sorted = [...ious].sort((p, q) => p - q);
  const share = (t: number) => (ious.length ? ious.filter((v) => v >= t).length / ious.length : null);
  return {
    n: keys.length,
    only_a: [...da.keys()].filter((k) => !db.has(k)).length,
    only_b: [...db.keys()].filter((k) => !da.has(k)).length,
    kappa: cohenKappa(keys.map((k) => da.get(k)!.decision.kind), keys.map((k) => db.get(k)!.decision.kind)),
    iou: {
      n: ious.length,
      mean: ious.length ? ious.reduce((s, v) => s + v, 0) / ious.length : null,
      p10: ious.length ? quantileSorted(sorted, 0.1) : null,
      median: ious.length ? quantileSorted(sorted, 0.5) : null,
      p90: ious.length ? quantileSorted(sorted, 0.9) : null,
      at_least: { '0.5': share(0.5), '0.75': share(0.75), '0.9': share(0.9) },
    },
    disagreements,
  };
}
