/**
 * Mask IoU for many pairs: each RLE is decoded once into its runs of ones, then every pair is an
 * interval intersection over the columns both bounding boxes share. Same values as pycocotools'
 * `mask.iou(dt, gt, iscrowd)`, including its crowd rule (docs/scoring.md, "Mask IoU").
 */
import { GsrError } from '../util/errors.js';
import { type Rle, type RleRuns, runLengths } from './rle.js';

/** A mask decoded for repeated IoUs. Build it with {@link decodeMask}; treat it as opaque. */
export interface DecodedMask {
  readonly size: readonly [number, number];
  /** Pixels set. */
  readonly area: number;
  /** Runs of ones as [start, end) column-major pixel positions, interleaved: s0, e0, s1, e1, ... */
  readonly ones: Int32Array;
  /** For each column x (and x = width), the index of the first run of ones that ends after x*height. */
  readonly columnRun: Int32Array;
  /** Tight box in pixels: first and last column, first and last row (as pycocotools' toBbox). */
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

const MAX_PIXELS = 2 ** 31 - 1;

function isDecoded(m: Rle | RleRuns | DecodedMask): m is DecodedMask {
  return (m as DecodedMask).ones instanceof Int32Array;
}

/** Decodes a compressed or uncompressed RLE once, for {@link maskIou} and {@link rleIouMatrix}. */
export function decodeMask(rle: Rle | RleRuns | DecodedMask): DecodedMask {
  if (isDecoded(rle)) return rle;
  const runs = runLengths(rle);
  const [h, w] = rle.size;
  if (h * w > MAX_PIXELS) throw new GsrError(`mask ${h}x${w} has more than 2^31-1 pixels`);
  let n = 0;
  for (let j = 1; j < runs.length; j += 2) if (runs[j] > 0) n++;
  const ones = new Int32Array(2 * n);
  const columnRun = new Int32Array(w + 1);
  let area = 0;
  let x0 = w;
  let x1 = -1;
  let y0 = h;
  let y1 = -1;
  // Walk the runs and the columns together (no division per run): col is the column holding pos,
  // colStart its first position.
  let pos = 0;
  let k = 0;
  let col = 0;
  let colStart = 0;
  for (let j = 0; j < runs.length; j++) {
    const end = pos + runs[j];
    if (j % 2 === 1 && end > pos) {
      while (pos >= colStart + h) {
        columnRun[++col] = k >> 1;
        colStart += h;
      }
      const firstCol = col;
      const firstRow = pos - colStart;
      ones[k++] = pos;
      ones[k++] = end;
      area += end - pos;
      // Columns this run reaches past its first one start with this run (it ends after them).
      while (end - 1 >= colStart + h) {
        columnRun[++col] = (k >> 1) - 1;
        colStart += h;
      }
      const lastRow = end - 1 - colStart;
      if (firstCol < x0) x0 = firstCol;
      x1 = col;
      // A run that wraps into a later column spans every row, as in pycocotools.
      if (col > firstCol) {
        y0 = 0;
        y1 = h - 1;
      } else {
        if (firstRow < y0) y0 = firstRow;
        if (lastRow > y1) y1 = lastRow;
      }
    }
    pos = end;
  }
  while (col < w) columnRun[++col] = n;
  return { size: [h, w], area, ones, columnRun, x0, x1, y0, y1 };
}

/**
 * Pixels set in both masks (same size, boxes that meet: checked by the callers). A merge of the two
 * lists of runs of ones over the columns both boxes share, each run's ends held in locals and read
 * again only when that list moves on.
 */
function intersection(a: DecodedMask, b: DecodedMask): number {
  const xa = a.x0 > b.x0 ? a.x0 : b.x0;
  const xb = a.x1 < b.x1 ? a.x1 : b.x1;
  const A = a.ones;
  const B = b.ones;
  let i = 2 * a.columnRun[xa];
  let j = 2 * b.columnRun[xa];
  const ia = lastRun(a, xb);
  const jb = lastRun(b, xb);
  if (i >= ia || j >= jb) return 0;
  let sa = A[i];
  let ea = A[i + 1];
  let sb = B[j];
  let eb = B[j + 1];
  let inter = 0;
  for (;;) {
    // The run that ends first meets no later run of the other list: count its overlap, move past it.
    if (ea <= eb) {
      if (ea > sb) inter += ea - (sa > sb ? sa : sb);
      i += 2;
      if (i >= ia) break;
      sa = A[i];
      ea = A[i + 1];
    } else {
      if (eb > sa) inter += eb - (sa > sb ? sa : sb);
      j += 2;
      if (j >= jb) break;
      sb = B[j];
      eb = B[j + 1];
    }
  }
  return inter;
}

/** Index in `ones` just past the last run that starts before column x + 1. */
function lastRun(m: DecodedMask, x: number): number {
  // Runs before columnRun[x + 1] end by the column's end; the one at it may start inside.
  const k = 2 * m.columnRun[x + 1];
  return k < m.ones.length && m.ones[k] < (x + 1) * m.size[0] ? k + 2 : k;
}

function boxesMeet(a: DecodedMask, b: DecodedMask): boolean {
  return a.area > 0 && b.area > 0 && a.x0 <= b.x1 && b.x0 <= a.x1 && a.y0 <= b.y1 && b.y0 <= a.y1;
}

function checkSameSize(a: DecodedMask, b: DecodedMask): void {
  if (a.size[0] !== b.size[0] || a.size[1] !== b.size[1]) {
    throw new GsrError(`RLE sizes differ: [${a.size.join(',')}] vs [${b.size.join(',')}]`);
  }
}

/** IoU of one pair, or intersection over the first mask's area when the second is a crowd region. */
function pairIou(a: DecodedMask, b: DecodedMask, crowd: boolean): number {
  if (!boxesMeet(a, b)) return 0;
  const inter = intersection(a, b);
  if (inter === 0) return 0;
  return inter / (crowd ? a.area : a.area + b.area - inter);
}

/**
 * IoU of two decoded masks; 0 when they share no pixel (so never NaN). With `crowd`, the second mask
 * is a crowd region and the value is intersection over the first mask's area.
 */
export function maskIou(a: DecodedMask, b: DecodedMask, crowd = false): number {
  checkSameSize(a, b);
  return pairIou(a, b, crowd);
}

/** Intersection over union of two masks of one size; 0 when they share no pixel (never NaN). */
export function rleIou(a: Rle | RleRuns | DecodedMask, b: Rle | RleRuns | DecodedMask): number {
  return maskIou(decodeMask(a), decodeMask(b));
}

/**
 * All pairwise IoUs, `result[d][g]` for detection d and ground truth g, as pycocotools'
 * `mask.iou(dt, gt, iscrowd)`: each input is decoded once (pass the same array twice for a square
 * matrix), pairs whose boxes do not meet cost nothing. `iscrowd[g]` marks ground truths that are crowd
 * regions (intersection over the detection's area). Masks must share one size: pycocotools writes -1
 * for some mismatched pairs, here a mismatch is a GsrError.
 */
export function rleIouMatrix(
  dt: ReadonlyArray<Rle | RleRuns | DecodedMask>,
  gt: ReadonlyArray<Rle | RleRuns | DecodedMask>,
  iscrowd?: ReadonlyArray<boolean | number>,
): Float64Array[] {
  if (iscrowd !== undefined && iscrowd.length !== gt.length) {
    throw new GsrError(`iscrowd has ${iscrowd.length} flags for ${gt.length} ground-truth masks`);
  }
  const d = dt.map(decodeMask);
  const g = gt === dt ? d : gt.map(decodeMask);
  // One size for all, checked once; the first pair that differs is the one named, as pair by pair.
  if (d.length > 0) for (const m of g) checkSameSize(d[0], m);
  if (g.length > 0) for (const m of d) checkSameSize(m, g[0]);
  const crowd = g.map((_, j) => iscrowd !== undefined && Boolean(iscrowd[j]));
  const out: Float64Array[] = [];
  for (let i = 0; i < d.length; i++) {
    const row = new Float64Array(g.length);
    const a = d[i];
    for (let j = 0; j < g.length; j++) row[j] = pairIou(a, g[j], crowd[j]);
    out.push(row);
  }
  return out;
}
