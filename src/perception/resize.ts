/**
 * Pure resampling kernels that sharp does not offer: PIL's resampler (the pre-processing of
 * GroundingDINO, SAM and Depth Anything) and PyTorch's bilinear `interpolate(align_corners=False)`
 * on float maps (mask and depth post-processing). OpenCV's INTER_AREA is in inter-area.ts.
 */
import { GsrError } from '../util/errors.js';
import { PIL_RESAMPLE_WASM } from './pil-resample-wasm.js';
import { lazyKernel, WasmLayout } from './wasm.js';

function linearTaps(src: number, dst: number): { i0: Int32Array; i1: Int32Array; w: Float32Array } {
  const scale = src / dst;
  const i0 = new Int32Array(dst);
  const i1 = new Int32Array(dst);
  const w = new Float32Array(dst);
  for (let d = 0; d < dst; d++) {
    const s = Math.max((d + 0.5) * scale - 0.5, 0);
    const a = Math.min(Math.floor(s), src - 1);
    i0[d] = a;
    i1[d] = Math.min(a + 1, src - 1);
    w[d] = s - a;
  }
  return { i0, i1, w };
}

/**
 * Bilinear resize of a single-channel float map, as PyTorch's `interpolate(mode="bilinear",
 * align_corners=False)` without antialiasing (what Hugging Face's post-processors use).
 * Reads the `sw` x `sh` window at the top-left of a map whose rows are `stride` wide (cropping).
 */
export function resizeBilinearFloat(
  src: Float32Array,
  sw: number,
  sh: number,
  dw: number,
  dh: number,
  stride = sw,
): Float32Array {
  const xs = linearTaps(sw, dw);
  const ys = linearTaps(sh, dh);
  const out = new Float32Array(dw * dh);
  for (let y = 0; y < dh; y++) {
    const r0 = ys.i0[y]! * stride;
    const r1 = ys.i1[y]! * stride;
    const wy = ys.w[y]!;
    for (let x = 0; x < dw; x++) {
      const a = xs.i0[x]!;
      const b = xs.i1[x]!;
      const wx = xs.w[x]!;
      const top = src[r0 + a]! * (1 - wx) + src[r0 + b]! * wx;
      const bottom = src[r1 + a]! * (1 - wx) + src[r1 + b]! * wx;
      out[y * dw + x] = top * (1 - wy) + bottom * wy;
    }
  }
  return out;
}

/** PIL's resampling filters: support and kernel. */
const PIL_FILTERS = {
  bilinear: { support: 1, f: (x: number) => (x < 0 ? -x : x) < 1 ? 1 - Math.abs(x) : 0 },
  bicubic: {
    support: 2,
    f: (x: number) => {
      const a = -0.5;
      const t = Math.abs(x);
      if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
      if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
      return 0;
    },
  },
} as const;

const PRECISION_BITS = 32 - 8 - 2;

interface PilTaps {
  start: Int32Array;
  count: Int32Array;
  ksize: number;
  /** Fixed-point coefficients, `ksize` per output pixel. */
  k: Int32Array;
}

/** PIL's precompute_coeffs + normalize_coeffs_8bpc (Resample.c), for one axis. */
function pilTaps(inSize: number, outSize: number, filter: keyof typeof PIL_FILTERS): PilTaps {
  const { support: base, f } = PIL_FILTERS[filter];
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1);
  const support = base * filterScale;
  const ksize = Math.ceil(support) * 2 + 1;
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const k = new Int32Array(outSize * ksize);
  const w = new Float64Array(ksize);
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    const ss = 1 / filterScale;
    const xmin = Math.max(Math.trunc(center - support + 0.5), 0);
    const xmax = Math.min(Math.trunc(center + support + 0.5), inSize) - xmin;
    let ww = 0;
    for (let x = 0; x < xmax; x++) {
      w[x] = f((x + xmin - center + 0.5) * ss);
      ww += w[x]!;
    }
    for (let x = 0; x < xmax; x++) {
      const v = ww !== 0 ? w[x]! / ww : w[x]!;
      k[xx * ksize + x] = v < 0 ? Math.trunc(-0.5 + v * (1 << PRECISION_BITS)) : Math.trunc(0.5 + v * (1 << PRECISION_BITS));
    }
    // Drop zero coefficients at both ends (common when enlarging): same sums, fewer reads.
    let lo = 0;
    let hi = xmax;
    while (hi > lo && k[xx * ksize + hi - 1] === 0) hi--;
    while (lo < hi && k[xx * ksize + lo] === 0) lo++;
    if (lo > 0) k.copyWithin(xx * ksize, xx * ksize + lo, xx * ksize + hi);
    start[xx] = xmin + lo;
    count[xx] = hi - lo;
  }
  return { start, count, ksize, k };
}

type Horizontal = (src: number, sw: number, rows: number, dw: number, start: number, count: number, coeffs: number, ksize: number, out: number) => void;
type Vertical = (src: number, rowLen: number, dh: number, start: number, count: number, coeffs: number, ksize: number, out: number) => void;

const kernel = lazyKernel<{ horizontal: Horizontal; vertical: Vertical }>(PIL_RESAMPLE_WASM);

/**
 * Resizes interleaved 8-bit RGB exactly as PIL's `Image.resize` with BILINEAR or BICUBIC does, when
 * shrinking as when enlarging (`reducing_gap` None, the default, which Hugging Face's processors
 * keep): the same coefficients (support scaled by the shrink factor), fixed-point sums, and the
 * horizontal pass first, stored in 8 bits, then the vertical pass. An axis whose size does not change
 * is not resampled. Like `Image.resize` (Pillow 12), an image more than 100 times taller than wide
 * that shrinks vertically is resized vertically first, as a resize of its own, then horizontally. The
 * two passes run as a WebAssembly SIMD kernel (wasm/pil-resample.ts).
 */
export function resizePilRgb(
  src: Uint8Array,
  sw: number,
  sh: number,
  dw: number,
  dh: number,
  filter: 'bilinear' | 'bicubic',
): Uint8Array {
  if (![sw, sh, dw, dh].every((v) => Number.isInteger(v) && v > 0)) throw new GsrError(`PIL resize: sizes must be positive integers, got ${sw}x${sh} -> ${dw}x${dh}`);
  if (src.length !== sw * sh * 3) throw new GsrError(`PIL resize: ${src.length} bytes for a ${sw}x${sh} RGB image`);
  if (sh > sw * 100 && dh < sh) return resample(resample(src, sw, sh, sw, dh, filter), sw, dh, dw, dh, filter);
  return resample(src, sw, sh, dw, dh, filter);
}

/** Pillow's ImagingResample: the horizontal pass (if any), then the vertical one. */
function resample(src: Uint8Array, sw: number, sh: number, dw: number, dh: number, filter: 'bilinear' | 'bicubic'): Uint8Array {
  const xt = dw !== sw ? pilTaps(sw, dw, filter) : undefined;
  const yt = dh !== sh ? pilTaps(sh, dh, filter) : undefined;
  if (!xt && !yt) return src.slice();
  const { memory, fns } = kernel();
  // Only the source rows the vertical pass reads (PIL's ybox_first .. ybox_last).
  let y0 = yt ? sh : 0;
  let y1 = yt ? 0 : sh;
  if (yt) {
    for (let y = 0; y < dh; y++) {
      y0 = Math.min(y0, yt.start[y]!);
      y1 = Math.max(y1, yt.start[y]! + yt.count[y]!);
    }
  }
  const rows = src.subarray(y0 * sw * 3, y1 * sw * 3);
  const rowLen = dw * 3;
  const layout = new WasmLayout();
  // Spare bytes: the kernel reads 8 bytes per pair of 3-byte pixels and 16 per step down a row.
  const at = {
    src: layout.block(rows.length + 16),
    mid: xt && yt ? layout.block((y1 - y0) * rowLen + 16) : 0,
    out: layout.block(dh * rowLen + 16),
    x: xt && layout.block(2 * 4 * dw + 8 * ((xt.ksize + 1) >> 1) * dw),
    y: yt && layout.block(3 * 4 * dh + yt.k.byteLength),
  };
  const buf = layout.commit(memory);
  new Uint8Array(buf, at.src, rows.length).set(rows);
  if (xt) {
    const pairs = (xt.ksize + 1) >> 1;
    const start = new Int32Array(buf, at.x!, dw);
    const count = new Int32Array(buf, at.x! + 4 * dw, dw);
    const words = new Int32Array(buf, at.x! + 8 * dw, 2 * pairs * dw).fill(0);
    start.set(xt.start);
    for (let x = 0; x < dw; x++) {
      const n = xt.count[x]!;
      count[x] = (n + 1) >> 1;
      for (let i = 0; i < n; i++) {
        const kv = xt.k[x * xt.ksize + i]!;
        const w = 2 * (x * pairs + (i >> 1));
        const half = (i & 1) * 16;
        words[w] |= ((kv >> 8) & 0xffff) << half;
        words[w + 1] |= (kv & 255) << half;
      }
    }
    fns.horizontal(at.src, sw, y1 - y0, dw, at.x!, at.x! + 4 * dw, at.x! + 8 * dw, pairs, yt ? at.mid : at.out);
  }
  if (yt) {
    const start = new Int32Array(buf, at.y!, dh);
    for (let y = 0; y < dh; y++) start[y] = yt.start[y]! - y0;
    new Int32Array(buf, at.y! + 4 * dh, dh).set(yt.count);
    new Int32Array(buf, at.y! + 8 * dh, yt.k.length).set(yt.k);
    fns.vertical(xt ? at.mid : at.src, rowLen, dh, at.y!, at.y! + 4 * dh, at.y! + 8 * dh, yt.ksize, at.out);
  }
  return new Uint8Array(buf, at.out, dh * rowLen).slice();
}
