/**
 * Per-object depth statistics (pure). Percentiles interpolate linearly between the closest
 * ranks, as numpy's default does, so figures can be checked against a Python reference.
 */
import { quantilesInPlace } from '../util/stats.js';
import type { Box } from './boxes.js';

/**
 * Pixel index ranges covered by a box: a pixel is inside when its centre is. A box smaller than
 * one pixel still covers the pixel holding its centre, so every detected object gets a region.
 */
export function boxPixelRange(box: Box, width: number, height: number): { x0: number; x1: number; y0: number; y1: number } {
  const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), max);
  let x0 = clamp(Math.ceil(box[0] - 0.5), width);
  let x1 = clamp(Math.ceil(box[2] - 0.5), width);
  let y0 = clamp(Math.ceil(box[1] - 0.5), height);
  let y1 = clamp(Math.ceil(box[3] - 0.5), height);
  if (x1 <= x0) {
    x0 = clamp(Math.floor((box[0] + box[2]) / 2), width - 1);
    x1 = x0 + 1;
  }
  if (y1 <= y0) {
    y0 = clamp(Math.floor((box[1] + box[3]) / 2), height - 1);
    y1 = y0 + 1;
  }
  return { x0, x1, y0, y1 };
}

/** Depth statistics of one region (the `depth` field of an annotation). */
export interface RegionDepthStats<Unit extends string = string> {
  median: number;
  mean: number;
  p10: number;
  p90: number;
  unit: Unit;
  region: 'mask' | 'box';
}

/**
 * Median, mean and p10/p90 of the finite depth values inside `mask` (row-major 0/1 at the depth
 * map's size) or, when the mask is absent or empty, inside `box`. Null when no finite value is there.
 */
export function regionDepthStats<Unit extends string>(
  depth: Float32Array,
  width: number,
  height: number,
  unit: Unit,
  region: { mask?: Uint8Array; box: Box },
): RegionDepthStats<Unit> | null {
  let values = region.mask ? collectMasked(depth, region.mask) : null;
  let kind: 'mask' | 'box' = 'mask';
  if (values === null || values.length === 0) {
    values = collectBox(depth, width, height, region.box);
    kind = 'box';
  }
  if (values.length === 0) return null;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  const [median, p10, p90] = quantilesInPlace(values, [0.5, 0.1, 0.9]);
  return {
    median: median!,
    mean: sum / values.length,
    p10: p10!,
    p90: p90!,
    unit,
    region: kind,
  };
}

function collectMasked(depth: Float32Array, mask: Uint8Array): Float64Array {
  let n = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] && Number.isFinite(depth[i])) n++;
  const out = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] && Number.isFinite(depth[i])) out[k++] = depth[i];
  return out;
}

function collectBox(depth: Float32Array, width: number, height: number, box: Box): Float64Array {
  if (width === 0 || height === 0) return new Float64Array(0);
  const { x0, x1, y0, y1 } = boxPixelRange(box, width, height);
  const out: number[] = [];
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const v = depth[y * width + x];
      if (Number.isFinite(v)) out.push(v);
    }
  }
  return Float64Array.from(out);
}
