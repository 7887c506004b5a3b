/**
 * Simulated pseudo-labels with known errors, made from exact synthetic truth, to measure the review
 * queue and to test the relabel loop. Pure and seeded. The model behind it is in docs/review.md:
 * every label gets a detector-like confidence and sometimes a distant runner-up; a chosen share is
 * corrupted the ways detectors fail (another place, a part of the object, a loose box, not found).
 */
import type { CocoAnnotation, CocoFile, CocoImage } from '../formats/coco.js';
import { Rng } from '../util/random.js';
import { boxIou, clipBox, xywhToXyxy, xyxyToXywh, type Box } from '../geometry/boxes.js';
import { rleArea, rleDecode, rleEncode } from '../geometry/rle.js';
import { slotKey } from './labels.js';

export type CorruptionKind = 'wrong-place' | 'part' | 'loose' | 'not-found';
export const CORRUPTION_KINDS: readonly CorruptionKind[] = ['wrong-place', 'part', 'loose', 'not-found'];

export interface SimulateOptions {
  seed?: number;
  /** Share of labels corrupted (default 0.08). */
  rate?: number;
  kinds?: readonly CorruptionKind[];
  /** Box edge noise on clean labels, as a share of the box side (default 0.02; 0 keeps truth boxes). */
  jitter?: number;
}

export interface Corruption {
  key: string;
  item: string;
  role: 'subject' | 'object';
  kind: CorruptionKind;
  /** The exact box, xyxy. */
  truth: Box;
}

const roundBox = (b: Box): Box => b.map((v) => Math.round(v * 100) / 100) as Box;

function translateMask(mask: Uint8Array, w: number, h: number, dx: number, dy: number): Uint8Array {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const sy = y - dy;
    if (sy < 0 || sy >= h) continue;
    for (let x = 0; x < w; x++) {
      const sx = x - dx;
      if (sx >= 0 && sx < w && mask[sy * w + sx]) out[y * w + x] = 1;
    }
  }
  return out;
}

function cropMask(mask: Uint8Array, w: number, box: Box): Uint8Array {
  const out = new Uint8Array(mask.length);
  const [x0, y0, x1, y1] = box.map(Math.round);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) out[y * w + x] = mask[y * w + x];
  return out;
}

/** Copies `truth` and corrupts a seeded share of its labels; returns the corrupted file and the list. */
export function simulatePseudoLabels(truth: CocoFile, options: SimulateOptions = {}): { coco: CocoFile; corrupted: Corruption[] } {
  const rng = new Rng(options.seed ?? 1, 0x5eed);
  const rate = options.rate ?? 0.08;
  const kinds = options.kinds ?? CORRUPTION_KINDS;
  const jitter = options.jitter ?? 0.02;
  const images = new Map<number, CocoImage>(truth.images.map((i) => [i.id, { ...i, missing: [...(i.missing ?? [])] }]));
  const anns = truth.annotations.map((a) => ({ ...a }));
  const count = Math.round(rate * anns.length);
  // Choose `count` distinct labels (partial Fisher-Yates).
  const order = anns.map((_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(rng.next() * (order.length - i));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const chosen = new Map<number, CorruptionKind>();
  order.slice(0, count).forEach((idx, i) => chosen.set(idx, kinds[i % kinds.length]));

  const corrupted: Corruption[] = [];
  const dropped = new Set<number>();
  anns.forEach((ann, idx) => {
    const image = images.get(ann.image_id)!;
    const [W, H] = [image.width, image.height];
    const box = xywhToXyxy(ann.bbox);
    const kind = chosen.get(idx);
    if (kind === undefined) {
      const [bw, bh] = [box[2] - box[0], box[3] - box[1]];
      const noisy = clipBox([box[0] + rng.uniform(-1, 1) * jitter * bw, box[1] + rng.uniform(-1, 1) * jitter * bh, box[2] + rng.uniform(-1, 1) * jitter * bw, box[3] + rng.uniform(-1, 1) * jitter * bh], W, H);
      setLabel(ann, jitter > 0 ? roundBox(noisy) : box, rng.uniform(0.38, 0.95));
      if (rng.chance(0.3)) addRunnerUp(ann, rng, W, H, ann.score * rng.uniform(0.3, 0.85));
      return;
    }
    corrupted.push({ key: slotKey(image.item_id, ann.role), item: image.item_id, role: ann.role, kind, truth: box });
    const mask = ann.segmentation ? rleDecode(ann.segmentation) : null;
    const score = rng.uniform(0.35, 0.72);
    if (kind === 'not-found') {
      dropped.add(idx);
      image.missing!.push({ role: ann.role, phrase: ann.phrase, reason: 'no box above the detector threshold' });
    } else if (kind === 'wrong-place') {
      // Another object of the kind elsewhere: same size, away from the true box; SAM segments it.
      let moved = box;
      for (let tries = 0; tries < 50; tries++) {
        const dx = Math.round(rng.uniform(-box[0], W - box[2]));
        const dy = Math.round(rng.uniform(-box[1], H - box[3]));
        moved = [box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy];
        if (boxIou(moved, box) < 0.1) break;
      }
      setLabel(ann, moved, score);
      if (mask) setMask(ann, translateMask(mask, W, H, Math.round(moved[0] - box[0]), Math.round(moved[1] - box[1])), H, W);
      // The detector nearly chose the right one.
      ann.runners_up = [{ bbox: xyxyToXywh(box), score: score * rng.uniform(0.85, 1) }];
    } else if (kind === 'part') {
      // Only a part of the object (the paper's Figure 5): a box a quarter to 40% of the sides.
      const f = rng.uniform(0.25, 0.4);
      const [bw, bh] = [(box[2] - box[0]) * f, (box[3] - box[1]) * f];
      const x = rng.uniform(box[0], box[2] - bw);
      const y = rng.uniform(box[1], box[3] - bh);
      const part = roundBox([x, y, x + bw, y + bh]);
      setLabel(ann, part, score);
      if (mask) setMask(ann, cropMask(mask, W, part), H, W);
    } else {
      // A loose box around the object and its surroundings; the mask still finds the object.
      const f = rng.uniform(2, 3);
      const [cx, cy] = [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
      const [hw, hh] = [((box[2] - box[0]) * f) / 2, ((box[3] - box[1]) * f) / 2];
      setLabel(ann, roundBox(clipBox([cx - hw, cy - hh, cx + hw, cy + hh], W, H)), score);
    }
  });
  const info = { ...truth.info, source: 'auto' as const, simulated: { from: 'exact-synthetic', seed: options.seed ?? 1, rate, kinds: [...kinds], jitter } };
  return { coco: { ...truth, info, images: [...images.values()], annotations: anns.filter((_, i) => !dropped.has(i)) }, corrupted };
}

function setLabel(ann: CocoAnnotation, box: Box, score: number): void {
  ann.bbox = xyxyToXywh(box);
  ann.score = Math.round(score * 1e4) / 1e4;
  if (!ann.segmentation) ann.area = ann.bbox[2] * ann.bbox[3];
}

function setMask(ann: CocoAnnotation, mask: Uint8Array, h: number, w: number): void {
  const rle = rleEncode(mask, h, w);
  ann.segmentation = { size: [h, w], counts: rle.counts as string };
  ann.area = rleArea(rle);
}

function addRunnerUp(ann: CocoAnnotation, rng: Rng, W: number, H: number, score: number): void {
  const [, , w, h] = ann.bbox;
  const box = xywhToXyxy(ann.bbox);
  for (let tries = 0; tries < 20; tries++) {
    const nx = rng.uniform(0, Math.max(W - w, 0));
    const ny = rng.uniform(0, Math.max(H - h, 0));
    const cand: Box = [nx, ny, nx + w, ny + h];
    if (boxIou(cand, box) < 0.3) {
      ann.runners_up = [{ bbox: roundBox([nx, ny, w, h]), score: Math.round(score * 1e4) / 1e4 }];
      return;
    }
  }
}
