/**
 * Pure resampling kernels that sharp does not offer: PIL's resampler (where GroundingDINO and SAM
 * enlarge) and PyTorch's bilinear `interpolate(align_corners=False)` on float maps (mask and depth
 * post-processing). OpenCV's INTER_AREA is in inter-area.ts.
 */

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

const clip8 = (ss: number) => {
  const v = ss >> PRECISION_BITS;
  return v < 0 ? 0 : v > 255 ? 255 : v;
};

/**
 * Resizes interleaved 8-bit RGB exactly as PIL's `Image.resize` with BILINEAR or BICUBIC does
 * (same coefficients, fixed-point arithmetic, horizontal pass then vertical through 8 bits).
 * Horizontal rows are made as the vertical pass needs them and kept in a ring of the filter's height,
 * instead of a whole intermediate image (measured: the fresh megabytes cost more than the arithmetic).
 */
export function resizePilRgb(
  src: Uint8Array,
  sw: number,
  sh: number,
  dw: number,
  dh: number,
  filter: 'bilinear' | 'bicubic',
): Uint8Array {
  const half = 1 << (PRECISION_BITS - 1);
  const rowLen = dw * 3;
  const xt = dw !== sw ? pilTaps(sw, dw, filter) : undefined;
  const yt = dh !== sh ? pilTaps(sh, dh, filter) : undefined;
  const ringSize = yt ? yt.ksize : 1;
  const ring = Array.from({ length: ringSize }, () => new Uint8Array(rowLen));
  const ringRow = new Int32Array(ringSize).fill(-1);

  /** Source row `y` resized horizontally (8-bit, as PIL stores its intermediate image). */
  const horizontal = (y: number): Uint8Array => {
    if (!xt) return src.subarray(y * rowLen, (y + 1) * rowLen);
    const slot = y % ringSize;
    const row = ring[slot]!;
    if (ringRow[slot] === y) return row;
    ringRow[slot] = y;
    const rowIn = y * sw * 3;
    const { start, count, k, ksize } = xt;
    for (let x = 0; x < dw; x++) {
      let r = half, g = half, b = half;
      const kb = x * ksize;
      const s0 = rowIn + start[x]! * 3;
      const n = count[x]!;
      if (n === 2) {
        const k0 = k[kb]!;
        const k1 = k[kb + 1]!;
        const o = x * 3;
        row[o] = clip8((r + Math.imul(src[s0]!, k0) + Math.imul(src[s0 + 3]!, k1)) | 0);
        row[o + 1] = clip8((g + Math.imul(src[s0 + 1]!, k0) + Math.imul(src[s0 + 4]!, k1)) | 0);
        row[o + 2] = clip8((b + Math.imul(src[s0 + 2]!, k0) + Math.imul(src[s0 + 5]!, k1)) | 0);
        continue;
      }
      for (let i = 0; i < n; i++) {
        const kv = k[kb + i]!;
        const p = s0 + i * 3;
        // Int32 arithmetic as PIL's C (imul keeps V8 on integers instead of doubles).
        r = (r + Math.imul(src[p]!, kv)) | 0;
        g = (g + Math.imul(src[p + 1]!, kv)) | 0;
        b = (b + Math.imul(src[p + 2]!, kv)) | 0;
      }
      const o = x * 3;
      row[o] = clip8(r);
      row[o + 1] = clip8(g);
      row[o + 2] = clip8(b);
    }
    return row;
  };

  const out = new Uint8Array(dh * rowLen);
  if (!yt) {
    for (let y = 0; y < dh; y++) out.set(horizontal(y), y * rowLen);
    return out;
  }
  const acc = new Int32Array(rowLen);
  for (let y = 0; y < dh; y++) {
    const n = yt.count[y]!;
    const o = y * rowLen;
    if (n === 2) {
      // Enlarging with BILINEAR: two rows per output row, in one pass.
      const k0 = yt.k[y * yt.ksize]!;
      const k1 = yt.k[y * yt.ksize + 1]!;
      const r0 = horizontal(yt.start[y]!);
      const r1 = horizontal(yt.start[y]! + 1);
      for (let j = 0; j < rowLen; j++) out[o + j] = clip8((half + Math.imul(r0[j]!, k0) + Math.imul(r1[j]!, k1)) | 0);
      continue;
    }
    acc.fill(half);
    for (let i = 0; i < n; i++) {
      const kv = yt.k[y * yt.ksize + i]!;
      const row = horizontal(yt.start[y]! + i);
      for (let j = 0; j < rowLen; j++) acc[j] = (acc[j]! + Math.imul(row[j]!, kv)) | 0;
    }
    for (let j = 0; j < rowLen; j++) out[o + j] = clip8(acc[j]!);
  }
  return out;
}
