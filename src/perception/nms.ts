/** Pure box post-processing shared by the detector ports. */
import type { Detection } from './types.js';

type Xyxy = [number, number, number, number];

/** Intersection over union of two xyxy boxes (continuous pixels, no +1). */
export function iouXyxy(a: Xyxy, b: Xyxy): number {
  const iw = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const ih = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union > 0 ? inter / union : 0;
}

/** Greedy non-maximum suppression: best first, dropping boxes overlapping a kept one above `iou`. */
export function nonMaxSuppression(dets: Detection[], iou: number): Detection[] {
  const sorted = [...dets].sort((a, b) => b.score - a.score);
  const kept: Detection[] = [];
  for (const d of sorted) {
    if (kept.every((k) => iouXyxy(k.box, d.box) <= iou)) kept.push(d);
  }
  return kept;
}

/** Clamps an xyxy box to the image. */
export function clampBox(box: Xyxy, width: number, height: number): Xyxy {
  const cx = (v: number, hi: number) => Math.min(Math.max(v, 0), hi);
  return [cx(box[0], width), cx(box[1], height), cx(box[2], width), cx(box[3], height)];
}
