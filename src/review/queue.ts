/**
 * The review queue: every slot gets a suspicion in [0, 1] from independent warning signs, each with a
 * reason a person can read, and the queue lists the most suspicious first. Pure.
 *
 * Each sign maps a measurement to a weight in [0, 1]; the suspicion is 1 - prod(1 - weight), so one
 * strong sign or several weak ones bring a label forward. Thresholds are in docs/review.md.
 */
import type { CocoFile } from '../formats/coco.js';
import { boxIou, xywhToXyxy } from '../geometry/boxes.js';
import { rleDecode } from '../geometry/rle.js';
import { chooseCaption, relationEvidence } from '../mllm/baselines/geometry-reasoner.js';
import { sceneOf, type ItemAnnotations } from '../mllm/baselines/annotation-index.js';
import type { Slot } from './labels.js';

export type ReasonKind = 'low-confidence' | 'close-runner-up' | 'small-for-noun' | 'mask-box' | 'depth-order' | 'relation' | 'not-found';
export const REASON_KINDS: readonly ReasonKind[] = ['not-found', 'low-confidence', 'close-runner-up', 'small-for-noun', 'mask-box', 'depth-order', 'relation'];

export interface Reason {
  kind: ReasonKind;
  /** Contribution in (0, 1]. */
  weight: number;
  /** One line for the reviewer. */
  text: string;
}

export interface QueueEntry {
  key: string;
  suspicion: number;
  reasons: Reason[];
}

const clamp01 = (v: number) => Math.min(Math.max(v, 0), 1);
/** Linear ramp: 0 at `zero`, 1 at `one` (either direction). */
const ramp = (v: number, zero: number, one: number) => clamp01((v - zero) / (one - zero));
const fmt = (v: number, d = 2) => v.toFixed(d);

/**
 * Confidence below which a label is doubtful (GroundingDINO's box threshold is 0.35). Alone it is
 * weak evidence, so its weight stops at LOW_CONFIDENCE_MAX.
 */
export const LOW_CONFIDENCE = { zero: 0.55, one: 0.35 };
export const LOW_CONFIDENCE_MAX = 0.5;
/** A runner-up elsewhere (IoU < 0.5) at this share of the chosen box's confidence. */
export const RUNNER_UP_RATIO = { zero: 0.75, one: 0.97 };
/** Box side (sqrt of area share) against the noun's median side. */
export const SMALL_RATIO = { zero: 0.55, one: 0.25 };
/** Share of the box the mask fills, against the noun's median fill; share of the mask outside the box. */
export const MASK_FILL_RATIO = { zero: 0.6, one: 0.3 };
export const MASK_SPILL = { zero: 0.08, one: 0.3 };
/** Nouns need this many labels before "unusually small" is judged against them; else all labels. */
const MIN_NOUN_SAMPLES = 5;

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

interface MaskFit {
  fill: number;
  spill: number;
}

function maskFit(slot: Slot): MaskFit | null {
  const ann = slot.model;
  const rle = ann?.segmentation;
  if (!ann || !rle || rle.size[0] !== slot.image.height || rle.size[1] !== slot.image.width) return null;
  const [h, w] = rle.size;
  const mask = rleDecode(rle);
  const [x1, y1, x2, y2] = xywhToXyxy(ann.bbox);
  const bx0 = Math.max(0, Math.floor(x1));
  const bx1 = Math.min(w, Math.ceil(x2));
  const by0 = Math.max(0, Math.floor(y1));
  const by1 = Math.min(h, Math.ceil(y2));
  let total = 0;
  let inside = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!mask[y * w + x]) continue;
      total++;
      if (x >= bx0 && x < bx1 && y >= by0 && y < by1) inside++;
    }
  }
  const area = Math.max((bx1 - bx0) * (by1 - by0), 1);
  return { fill: inside / area, spill: total ? (total - inside) / total : 1 };
}

/** Relative side of a box: sqrt(box area / image area). */
function relativeSide(slot: Slot): number {
  return Math.sqrt(slot.model!.bbox[2] * slot.model!.bbox[3] / Math.max(slot.image.width * slot.image.height, 1));
}

/** Median of `value` per noun, falling back to the median over all labels for rare nouns. */
function perNounMedian(slots: Slot[], value: (s: Slot) => number | null): (phrase: string) => { median: number; n: number; noun: boolean } {
  const byNoun = new Map<string, number[]>();
  const all: number[] = [];
  for (const s of slots) {
    const v = value(s);
    if (v === null || !Number.isFinite(v)) continue;
    all.push(v);
    const key = s.phrase.toLowerCase();
    (byNoun.get(key) ?? byNoun.set(key, []).get(key)!).push(v);
  }
  const overall = median(all);
  const cache = new Map<string, { median: number; n: number; noun: boolean }>();
  return (phrase) => {
    const key = phrase.toLowerCase();
    let hit = cache.get(key);
    if (!hit) {
      const list = byNoun.get(key) ?? [];
      hit = list.length >= MIN_NOUN_SAMPLES ? { median: median(list), n: list.length, noun: true } : { median: overall, n: all.length, noun: false };
      cache.set(key, hit);
    }
    return hit;
  };
}

function pairReasons(subject: Slot, object: Slot | null, coco: CocoFile): Reason | null {
  const m = subject.manifest;
  if (!subject.model || (object && !object.model)) return null;
  const entry: ItemAnnotations = { width: subject.image.width, height: subject.image.height, subject: subject.model, object: object?.model ?? undefined, missing: [] };
  const scene = sceneOf(entry, coco.info?.depth?.larger);
  if (typeof scene === 'string') return null;
  const depthRelation = m.relation === 'front' || m.relation === 'behind';
  if (depthRelation && (scene.subject.distance === undefined || (scene.object && scene.object.distance === undefined))) return null;
  const evidence = relationEvidence(scene, m.relation);
  const choice = chooseCaption(scene, m.options, m.subject, m.object);
  if (choice.index === m.answer || choice.index < 0) return null;
  const kind: ReasonKind = depthRelation ? 'depth-order' : 'relation';
  const stated = m.options[m.answer];
  const weight = evidence < 0 ? 0.6 : 0.35;
  const text = depthRelation
    ? `depth order contradicts the caption "${stated}"`
    : `the boxes contradict the caption "${stated}" (they read as "${m.options[choice.index]}")`;
  return { kind, weight, text };
}

/**
 * Scores every slot and returns the queue, most suspicious first (ties in manifest order).
 * `coco` supplies the depth direction (info.depth.larger).
 */
export function buildQueue(slots: Slot[], coco: CocoFile): QueueEntry[] {
  const found = slots.filter((s) => s.model);
  const sideMedian = perNounMedian(found, relativeSide);
  const fits = new Map<string, MaskFit | null>();
  for (const s of found) fits.set(s.key, maskFit(s));
  const fillMedian = perNounMedian(found, (s) => fits.get(s.key)?.fill ?? null);
  const reasons = new Map<string, Reason[]>(slots.map((s) => [s.key, []]));

  for (const s of slots) {
    const list = reasons.get(s.key)!;
    const ann = s.model;
    if (!ann) {
      list.push({ kind: 'not-found', weight: 1, text: `the detector never found "${s.phrase}"` });
      continue;
    }
    const w = LOW_CONFIDENCE_MAX * ramp(ann.score, LOW_CONFIDENCE.zero, LOW_CONFIDENCE.one);
    if (w > 0) list.push({ kind: 'low-confidence', weight: w, text: `detector confidence ${fmt(ann.score)}` });

    const chosen = xywhToXyxy(ann.bbox);
    let best: { ratio: number; iou: number } | null = null;
    for (const r of ann.runners_up ?? []) {
      const iou = boxIou(chosen, xywhToXyxy(r.bbox));
      if (iou >= 0.5 || ann.score <= 0) continue;
      const ratio = r.score / ann.score;
      if (!best || ratio > best.ratio) best = { ratio, iou };
    }
    if (best) {
      const wr = ramp(best.ratio, RUNNER_UP_RATIO.zero, RUNNER_UP_RATIO.one);
      if (wr > 0) list.push({ kind: 'close-runner-up', weight: wr, text: `a box elsewhere (IoU ${fmt(best.iou)}) scored ${fmt(best.ratio)}x the chosen one` });
    }

    const side = sideMedian(s.phrase);
    const ratio = relativeSide(s) / side.median;
    const ws = ramp(ratio, SMALL_RATIO.zero, SMALL_RATIO.one);
    if (ws > 0) {
      const against = side.noun ? `"${s.phrase}" boxes (median of ${side.n})` : `all boxes (median of ${side.n})`;
      list.push({ kind: 'small-for-noun', weight: ws, text: `box side ${fmt(ratio)}x the usual for ${against}` });
    }

    const fit = fits.get(s.key);
    if (fit) {
      const usual = fillMedian(s.phrase).median;
      const fillRatio = usual > 0 ? fit.fill / usual : 1;
      const wf = ramp(fillRatio, MASK_FILL_RATIO.zero, MASK_FILL_RATIO.one);
      const wp = ramp(fit.spill, MASK_SPILL.zero, MASK_SPILL.one);
      if (wf > 0 || wp > 0) {
        const parts = [];
        if (wf > 0) parts.push(`the mask fills ${Math.round(100 * fit.fill)}% of its box (usual ${Math.round(100 * usual)}%)`);
        if (wp > 0) parts.push(`${Math.round(100 * fit.spill)}% of the mask lies outside the box`);
        list.push({ kind: 'mask-box', weight: Math.max(wf, wp), text: parts.join('; ') });
      }
    }
  }

  // Caption contradictions concern the pair: both labels get the reason.
  const byItem = new Map<string, { subject?: Slot; object?: Slot }>();
  for (const s of slots) (byItem.get(s.item) ?? byItem.set(s.item, {}).get(s.item)!)[s.role] = s;
  for (const pair of byItem.values()) {
    if (!pair.subject) continue;
    const reason = pairReasons(pair.subject, pair.object ?? null, coco);
    if (!reason) continue;
    reasons.get(pair.subject.key)!.push(reason);
    if (pair.object) reasons.get(pair.object.key)!.push(reason);
  }

  const order = new Map(slots.map((s, i) => [s.key, i]));
  const entries = slots.map((s) => {
    const list = reasons.get(s.key)!.sort((a, b) => b.weight - a.weight);
    const suspicion = 1 - list.reduce((p, r) => p * (1 - r.weight), 1);
    return { key: s.key, suspicion, reasons: list };
  });
  return entries.sort((a, b) => b.suspicion - a.suspicion || order.get(a.key)! - order.get(b.key)!);
}

/** Share of `marked` keys found in the first `share` of the queue (the acceptance measure). */
export function recallAtShare(queue: readonly QueueEntry[], marked: ReadonlySet<string>, share: number): number {
  if (marked.size === 0) return NaN;
  const top = queue.slice(0, Math.ceil(queue.length * share));
  return top.filter((e) => marked.has(e.key)).length / marked.size;
}
