/**
 * COCO run-length encoding, byte-compatible with pycocotools' compressed `counts` strings.
 *
 * Layout (pycocotools maskApi.c): the mask is read column-major (x outer, y inner); runs alternate
 * 0, 1, 0, ... starting with a (possibly empty) run of zeros. The string stores each count as
 * little-endian 5-bit groups, each char = group + 48, bit 0x20 = "more groups follow", bit 0x10 of
 * the last group = sign. From index 3 on, a count is stored as the difference to the count two
 * places back (the previous run of the same value).
 */
import { GsrError } from '../util/errors.js';

/** A compressed COCO RLE, as in COCO JSON `segmentation`. */
export interface Rle {
  size: [number, number];
  counts: string;
}

/** An uncompressed RLE: run lengths, zeros first. */
export interface RleRuns {
  size: [number, number];
  counts: number[];
}

function checkSize(height: number, width: number): void {
  if (!Number.isInteger(height) || !Number.isInteger(width) || height < 0 || width < 0) {
    throw new GsrError(`RLE size must be non-negative integers, got [${height}, ${width}]`);
  }
}

/**
 * Run lengths (zeros first) of a row-major mask; any non-zero value counts as 1.
 *
 * The runs change value exactly where a pixel differs from the one before it in column-major order
 * (the pixel above it, or for row 0 the last pixel of the previous column). Those changes are found
 * by comparing each row with the row above in memory order (a byte mask four bytes at a time), which
 * reads the mask once sequentially instead of striding down its columns, then put in column order.
 */
export function maskToRuns(mask: ArrayLike<number>, height: number, width: number): number[] {
  checkSize(height, width);
  const n = height * width;
  if (mask.length !== n) {
    throw new GsrError(`mask has ${mask.length} values, expected ${height}x${width} = ${n}`);
  }
  // Changes as (column, row), found row by row, so each column's rows come in increasing order.
  const cols: number[] = [];
  const rows: number[] = [];
  if (n > 0) {
    const lastRow = (height - 1) * width;
    let before = 0; // the mask starts with a run of zeros
    for (let x = 0; x < width; x++) {
      if ((mask[x] !== 0 ? 1 : 0) !== before) {
        cols.push(x);
        rows.push(0);
      }
      before = mask[lastRow + x] !== 0 ? 1 : 0;
    }
    const bytes = mask instanceof Uint8Array || mask instanceof Uint8ClampedArray ? mask : undefined;
    if (bytes && width % 4 === 0 && bytes.byteOffset % 4 === 0) {
      // Rows start on 4-byte boundaries: equal words hold equal pixels; unequal words are checked
      // byte by byte (1 and 255 differ as bytes but are both set).
      const words = new Uint32Array(bytes.buffer, bytes.byteOffset, n >> 2);
      const perRow = width >> 2;
      for (let y = 1; y < height; y++) {
        const rowStart = y * perRow;
        const rowEnd = rowStart + perRow;
        for (let k = rowStart; k < rowEnd; k++) {
          if (words[k] === words[k - perRow]) continue;
          for (let i = 4 * k; i < 4 * k + 4; i++) {
            if ((bytes[i] !== 0) !== (bytes[i - width] !== 0)) {
              cols.push(i - y * width);
              rows.push(y);
            }
          }
        }
      }
    } else {
      for (let y = 1; y < height; y++) {
        const rowStart = y * width;
        for (let x = 0; x < width; x++) {
          if ((mask[rowStart + x] !== 0) !== (mask[rowStart + x - width] !== 0)) {
            cols.push(x);
            rows.push(y);
          }
        }
      }
    }
  }
  // Counting sort by column (stable: rows stay in order), then runs between change positions.
  const start = new Int32Array(width + 1);
  for (let t = 0; t < cols.length; t++) start[cols[t] + 1]++;
  for (let x = 0; x < width; x++) start[x + 1] += start[x];
  const changes = new Float64Array(cols.length);
  for (let t = 0; t < cols.length; t++) changes[start[cols[t]]++] = cols[t] * height + rows[t];
  const runs: number[] = [];
  let at = 0;
  for (let t = 0; t < changes.length; t++) {
    runs.push(changes[t] - at);
    at = changes[t];
  }
  runs.push(n - at);
  return runs;
}

/** Encodes run lengths as a pycocotools compressed string. */
export function runsToString(runs: readonly number[]): string {
  let codes = new Uint8Array(runs.length * 2 + 16);
  let c = 0;
  for (let i = 0; i < runs.length; i++) {
    let x = runs[i];
    if (i > 2) x -= runs[i - 2];
    let more = true;
    while (more) {
      if (c === codes.length) codes = grow(codes);
      // Floor division keeps the arithmetic shift semantics for negatives beyond 32 bits.
      const group = x - Math.floor(x / 32) * 32;
      x = Math.floor(x / 32);
      more = group & 0x10 ? x !== -1 : x !== 0;
      codes[c++] = (more ? group | 0x20 : group) + 48;
    }
  }
  let out = '';
  for (let i = 0; i < c; i += 8192) {
    out += String.fromCharCode.apply(null, codes.subarray(i, Math.min(c, i + 8192)) as unknown as number[]);
  }
  return out;
}

function grow(codes: Uint8Array): Uint8Array<ArrayBuffer> {
  const bigger = new Uint8Array(codes.length * 2);
  bigger.set(codes);
  return bigger;
}

/** Decodes a pycocotools compressed string into run lengths; malformed strings throw GsrError. */
export function stringToRuns(counts: string): number[] {
  return toArray(parseCounts(counts));
}

/** A copy as a plain array (a loop: Array.from on a typed array was about 3x slower here). */
function toArray(runs: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs.length; i++) out.push(runs[i]);
  return out;
}

/**
 * parseCounts' buffer, reused: one per string would be garbage outside the JS heap for every decode.
 * A string of more than SCRATCH_MAX chars gets a buffer of its own, so this one stays under 512 KiB.
 */
let scratch = new Float64Array(1024);
const SCRATCH_MAX = 65536;

/**
 * The run lengths of a compressed string (exact to 2^53) in a buffer shared by every call, so valid
 * until the next call: callers read it at once or copy it.
 */
function parseCounts(counts: string): Float64Array {
  const n = counts.length;
  // Each value takes at least one char.
  if (scratch.length < n && n <= SCRATCH_MAX) scratch = new Float64Array(Math.min(SCRATCH_MAX, Math.max(n, 2 * scratch.length)));
  const runs = scratch.length >= n ? scratch : new Float64Array(n);
  let m = 0;
  let p = 0;
  while (p < n) {
    const start = p;
    let x = 0;
    let shift = 0;
    let c = 0;
    do {
      if (p >= n) throw new GsrError(`malformed RLE counts: truncated at char ${p}`);
      c = counts.charCodeAt(p) - 48;
      if (c < 0 || c > 63) throw new GsrError(`malformed RLE counts: bad char ${JSON.stringify(counts[p])} at ${p}`);
      p++;
      if (shift < 30) x |= (c & 0x1f) << shift;
      shift += 5;
    } while (c & 0x20);
    // Up to six groups fit in 32-bit integer arithmetic; longer values take the exact float path.
    if (shift > 30) x = wideValue(counts, start, p);
    else if (c & 0x10) x |= -1 << shift;
    runs[m] = m > 2 ? x + runs[m - 2] : x;
    m++;
  }
  return runs.subarray(0, m);
}

/** The value of the groups counts[start..end), in floating point (exact to 2^53). */
function wideValue(counts: string, start: number, end: number): number {
  let x = 0;
  let scale = 1;
  let c = 0;
  for (let p = start; p < end; p++) {
    c = counts.charCodeAt(p) - 48;
    x += (c & 0x1f) * scale;
    scale *= 32;
  }
  return c & 0x10 ? x - scale : x;
}

function checkRuns(runs: ArrayLike<number>, size: [number, number], what: string): void {
  let total = 0;
  for (let i = 0; i < runs.length; i++) {
    const r = runs[i];
    if (!Number.isInteger(r) || r < 0) throw new GsrError(`${what}: negative or non-integer run ${r}`);
    total += r;
  }
  if (total !== size[0] * size[1]) {
    throw new GsrError(`${what}: runs sum to ${total}, expected ${size[0]}x${size[1]} = ${size[0] * size[1]}`);
  }
}

/**
 * Run lengths of a compressed or uncompressed RLE, validated against its size, not copied: a string's
 * are in parseCounts' shared buffer (valid until the next string is parsed), an array's are the array.
 */
export function runLengths(rle: Rle | RleRuns): ArrayLike<number> {
  if (!rle || !Array.isArray(rle.size) || rle.size.length !== 2) throw new GsrError('RLE needs size [h, w]');
  checkSize(rle.size[0], rle.size[1]);
  if (typeof rle.counts !== 'string' && !Array.isArray(rle.counts)) throw new GsrError('RLE counts must be a string or an array of run lengths');
  const runs = typeof rle.counts === 'string' ? parseCounts(rle.counts) : rle.counts;
  checkRuns(runs, rle.size, 'RLE');
  return runs;
}

/** Run lengths of a compressed or uncompressed RLE, validated against its size. */
export function rleRuns(rle: Rle | RleRuns): number[] {
  return toArray(runLengths(rle));
}

/** Encodes a row-major 0/1 mask as a pycocotools compressed RLE. */
export function rleEncode(mask: ArrayLike<number>, height: number, width: number): Rle {
  return { size: [height, width], counts: runsToString(maskToRuns(mask, height, width)) };
}

/** Decodes an RLE into a row-major 0/1 mask. */
export function rleDecode(rle: Rle | RleRuns): Uint8Array {
  const runs = runLengths(rle);
  const [h, w] = rle.size;
  const mask = new Uint8Array(h * w);
  let pos = 0; // column-major position
  for (let j = 0; j < runs.length; j++) {
    const end = pos + runs[j];
    if (j % 2 === 1 && end > pos) {
      // One division per run; then step down the column (no remainder per pixel).
      let y = pos % h;
      let at = y * w + (pos - y) / h;
      for (let k = pos; k < end; k++) {
        mask[at] = 1;
        if (++y === h) {
          y = 0;
          at -= (h - 1) * w - 1;
        } else at += w;
      }
    }
    pos = end;
  }
  return mask;
}

/** Number of pixels set (pycocotools `area`). */
export function rleArea(rle: Rle | RleRuns): number {
  const runs = runLengths(rle);
  let area = 0;
  for (let j = 1; j < runs.length; j += 2) area += runs[j];
  return area;
}

/**
 * Tight box [x, y, w, h] around the set pixels, pycocotools `toBbox` convention; [0,0,0,0] if empty.
 * As in pycocotools, a run of ones that wraps into a later column spans every row. Empty runs of ones
 * (only in hand-made uncompressed RLE) are skipped rather than read as pixels.
 */
export function rleToBbox(rle: Rle | RleRuns): [number, number, number, number] {
  const runs = runLengths(rle);
  const [h, w] = rle.size;
  if (h === 0) return [0, 0, 0, 0];
  let xs = w;
  let ys = h;
  let xe = 0;
  let ye = 0;
  let any = false;
  let pos = 0; // column-major index where the next run starts
  for (let j = 0; j + 1 < runs.length; j += 2) {
    const first = pos + runs[j];
    const len = runs[j + 1];
    pos = first + len;
    if (len === 0) continue;
    any = true;
    const last = first + len - 1;
    const y0 = first % h;
    const x0 = (first - y0) / h;
    const y1 = last % h;
    const x1 = (last - y1) / h;
    xs = Math.min(xs, x0);
    xe = Math.max(xe, x1);
    if (x1 > x0) {
      ys = 0;
      ye = h - 1;
    } else {
      ys = Math.min(ys, y0);
      ye = Math.max(ye, y1);
    }
  }
  if (!any) return [0, 0, 0, 0];
  return [xs, ys, xe - xs + 1, ye - ys + 1];
}

/** Combines two run lists pixel-wise (union or intersection), giving canonical runs. */
function combineRuns(a: readonly number[], b: readonly number[], op: 'or' | 'and'): number[] {
  const out: number[] = [];
  let ia = 0;
  let ib = 0;
  let leftA = a[0] ?? 0;
  let leftB = b[0] ?? 0;
  let va = 0;
  let vb = 0;
  let cur = 0;
  let run = 0;
  for (;;) {
    while (leftA === 0 && ia + 1 < a.length) {
      leftA = a[++ia];
      va ^= 1;
    }
    while (leftB === 0 && ib + 1 < b.length) {
      leftB = b[++ib];
      vb ^= 1;
    }
    if (leftA === 0 || leftB === 0) break;
    const step = Math.min(leftA, leftB);
    const v = op === 'or' ? va | vb : va & vb;
    if (v !== cur) {
      out.push(run);
      run = 0;
      cur = v;
    }
    run += step;
    leftA -= step;
    leftB -= step;
  }
  out.push(run);
  return out;
}

function sameSize(a: Rle | RleRuns, b: Rle | RleRuns): void {
  if (a.size[0] !== b.size[0] || a.size[1] !== b.size[1]) {
    throw new GsrError(`RLE sizes differ: [${a.size}] vs [${b.size}]`);
  }
}

function combine(rles: ReadonlyArray<Rle | RleRuns>, op: 'or' | 'and'): Rle {
  if (rles.length === 0) throw new GsrError('cannot merge an empty list of RLEs');
  let runs = rleRuns(rles[0]);
  for (let i = 1; i < rles.length; i++) {
    sameSize(rles[0], rles[i]);
    runs = combineRuns(runs, rleRuns(rles[i]), op);
  }
  return { size: [rles[0].size[0], rles[0].size[1]], counts: runsToString(runs) };
}

/** Union of masks of one size (pycocotools `merge(rles, intersect=0)`). */
export function rleMerge(rles: ReadonlyArray<Rle | RleRuns>): Rle {
  return combine(rles, 'or');
}

/** Intersection of masks of one size (pycocotools `merge(rles, intersect=1)`). */
export function rleIntersect(rles: ReadonlyArray<Rle | RleRuns>): Rle {
  return combine(rles, 'and');
}
