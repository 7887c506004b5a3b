/** Per-object depth statistics inside a mask (or a box when there is no mask). Pure. */
import type { ObjectDepth } from '../annotate/coco.js';
import type { DepthMap } from './types.js';

/** Percentile with linear interpolation between order statistics (numpy's default). */
export function percentile(sorted: Float64Array | number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = (p / 100) * (n - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * Median, mean, p10 and p90 of the depth inside `mask` (0/1, original size) or, without a mask,
 * inside the pixels whose centres lie in `box` (xyxy). Non-finite depths are ignored.
 * Returns undefined when the region holds no finite depth.
 */
export function depthStats(
  depth: DepthMap,
  region: { mask?: Uint8Array; box?: [number, number, number, number] },
): ObjectDepth | undefined {
  const values: number[] = [];
  const { width, height, data } = depth;
  if (region.mask) {
    for (let i = 0; i < width * height; i++) if (region.mask[i] && Number.isFinite(data[i]!)) values.push(data[i]!);
  } else if (region.box) {
    const [x1, y1, x2, y2] = region.box;
    const xa = Math.max(0, Math.ceil(x1 - 0.5));
    const xb = Math.min(width, Math.ceil(x2 - 0.5));
    const ya = Math.max(0, Math.ceil(y1 - 0.5));
    const yb = Math.min(height, Math.ceil(y2 - 0.5));
    for (let y = ya; y < yb; y++) for (let x = xa; x < xb; x++) if (Number.isFinite(data[y * width + x]!)) values.push(data[y * width + x]!);
  }
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    median: percentile(sorted, 50),
    mean: sum / sorted.length,
    p10: percentile(sorted, 10),
    p90: percentile(sorted, 90),
    unit: depth.unit,
    region: region.mask ? 'mask' : 'box',
  };
}
