/** Greedy non-maximum suppression shared by the detector ports. */
import { boxIou } from '../geometry/boxes.js';
import type { Detection } from './types.js';

/** Greedy non-maximum suppression: best first, dropping boxes overlapping a kept one above `iou`. */
export function nonMaxSuppression(dets: Detection[], iou: number): Detection[] {
  const sorted = [...dets].sort((a, b) => b.score - a.score);
  const kept: Detection[] = [];
  for (const d of sorted) {
    if (kept.every((k) => boxIou(k.box, d.box) <= iou)) kept.push(d);
  }
  return kept;
}
