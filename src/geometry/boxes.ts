/**
 * Axis-aligned boxes as 4-tuples. `xyxy` = corners, `xywh` = top-left + size (COCO), `cxcywh` =
 * centre + size. Pixel boxes use continuous coordinates (a 10-pixel-wide image spans x in [0, 10]),
 * so areas and IoU have no +1 (torchvision / supervision convention).
 */

/** Four numbers; which layout is meant is in the name of the function that takes it. */
export type Box = [number, number, number, number];

/** Box layouts accepted by {@link convertBox}. */
export type BoxLayout = 'xyxy' | 'xywh' | 'cxcywh';

export function xywhToXyxy([x, y, w, h]: readonly number[]): Box {
  return [x, y, x + w, y + h];
}

export function xyxyToXywh([x1, y1, x2, y2]: readonly number[]): Box {
  return [x1, y1, x2 - x1, y2 - y1];
}

export function cxcywhToXyxy([cx, cy, w, h]: readonly number[]): Box {
  return [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
}

export function xyxyToCxcywh([x1, y1, x2, y2]: readonly number[]): Box {
  return [(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1];
}

/** Converts between layouts (via xyxy). */
export function convertBox(box: readonly number[], from: BoxLayout, to: BoxLayout): Box {
  const xyxy: Box = from === 'xyxy' ? [box[0], box[1], box[2], box[3]] : from === 'xywh' ? xywhToXyxy(box) : cxcywhToXyxy(box);
  return to === 'xyxy' ? xyxy : to === 'xywh' ? xyxyToXywh(xyxy) : xyxyToCxcywh(xyxy);
}

/** Pixel box -> 0..1 fractions of the image (any layout: x values / width, y values / height). */
export function normalizeBox([a, b, c, d]: readonly number[], width: number, height: number): Box {
  return [a / width, b / height, c / width, d / height];
}

/** 0..1 fractions -> pixels (any layout). */
export function denormalizeBox([a, b, c, d]: readonly number[], width: number, height: number): Box {
  return [a * width, b * height, c * width, d * height];
}

/** Puts corners in order (x1 <= x2, y1 <= y2) for boxes written with swapped corners. */
export function orderCorners([x1, y1, x2, y2]: readonly number[]): Box {
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/** Clips an xyxy box to [0, width] x [0, height]. */
export function clipBox([x1, y1, x2, y2]: readonly number[], width: number, height: number): Box {
  return [clamp(x1, width), clamp(y1, height), clamp(x2, width), clamp(y2, height)];
}

function clamp(v: number, max: number): number {
  return Math.min(Math.max(v, 0), max);
}

/** True when all four values are finite numbers. */
export function isFiniteBox(box: readonly unknown[]): box is Box {
  if (box.length !== 4) return false;
  for (let i = 0; i < 4; i++) if (!Number.isFinite(box[i])) return false;
  return true;
}

/** Area of an xyxy box; 0 for degenerate, inverted or non-finite boxes. */
export function boxArea(box: readonly number[]): number {
  if (!isFiniteBox(box)) return 0;
  const w = box[2] - box[0];
  const h = box[3] - box[1];
  const area = w * h;
  // Overflowing areas (coordinates near 1e308) are treated like non-finite input.
  return w > 0 && h > 0 && Number.isFinite(area) ? area : 0;
}

/** Intersection over union of two xyxy boxes; 0 (never NaN) for disjoint, degenerate or non-finite boxes. */
export function boxIou(a: readonly number[], b: readonly number[]): number {
  const iw = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const ih = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  // A positive overlap implies both boxes have positive width and height (and no NaN).
  if (!(iw > 0 && ih > 0)) return 0;
  const inter = iw * ih;
  const iou = inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
  // An infinite or overflowing box gives 0 or NaN here; both mean "no usable overlap".
  return Number.isFinite(iou) ? iou : 0;
}
