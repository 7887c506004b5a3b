/**
 * PyTorch's `interpolate(mode="bicubic", align_corners=False)` on a single-channel float map, as
 * Transformers' depth post-processors call it: Keys' cubic convolution with a = -0.75, source
 * index `scale * (x + 0.5) - 0.5` (not clamped), taps clamped to the border, weights and sums in
 * float32 like ATen's CPU kernel (rows across, then the four row results down).
 */

const A = -0.75;

interface CubicTaps {
  /** Four source indices per output index, clamped to [0, size - 1]. */
  idx: Int32Array;
  /** Four float32 weights per output index. */
  w: Float32Array;
}

function cubicTaps(src: number, dst: number): CubicTaps {
  const f = Math.fround;
  const scale = f(src / dst);
  const idx = new Int32Array(dst * 4);
  const w = new Float32Array(dst * 4);
  for (let d = 0; d < dst; d++) {
    const real = f(f(scale * f(d + 0.5)) - 0.5);
    const i0 = Math.min(Math.floor(real), src - 1);
    const t = Math.min(Math.max(f(real - i0), 0), 1);
    // Keys' kernel at distances 1 + t, t, 1 - t, 2 - t (ATen's get_cubic_upsample_coefficients).
    const x1 = f(t + 1);
    const x2 = f(1 - t);
    w[d * 4] = f(f(f(f(f(A * x1) - f(5 * A)) * x1) + f(8 * A)) * x1) - f(4 * A);
    w[d * 4 + 1] = f(f(f(f(f(A + 2) * t) - f(A + 3)) * t) * t) + 1;
    w[d * 4 + 2] = f(f(f(f(f(A + 2) * x2) - f(A + 3)) * x2) * x2) + 1;
    const x3 = f(2 - t);
    w[d * 4 + 3] = f(f(f(f(f(A * x3) - f(5 * A)) * x3) + f(8 * A)) * x3) - f(4 * A);
    for (let k = 0; k < 4; k++) idx[d * 4 + k] = Math.max(Math.min(i0 + k - 1, src - 1), 0);
  }
  return { idx, w };
}

/**
 * Bicubic resize of a `sw` x `sh` float map to `dw` x `dh`, as PyTorch (CPU) computes
 * `interpolate(size=(dh, dw), mode="bicubic", align_corners=False)`. Values may overshoot the
 * input range, as PyTorch's do. Pure.
 */
export function resizeBicubicFloat(src: Float32Array, sw: number, sh: number, dw: number, dh: number): Float32Array {
  const f = Math.fround;
  const xs = cubicTaps(sw, dw);
  const ys = cubicTaps(sh, dh);
  // Each source row across once (float32 sums of four products), then four rows down per output row.
  const across = new Float32Array(sh * dw);
  for (let y = 0; y < sh; y++) {
    const row = y * sw;
    const o = y * dw;
    for (let x = 0; x < dw; x++) {
      const k = x * 4;
      const { idx, w } = xs;
      let s = f(src[row + idx[k]!]! * w[k]!);
      s = f(s + f(src[row + idx[k + 1]!]! * w[k + 1]!));
      s = f(s + f(src[row + idx[k + 2]!]! * w[k + 2]!));
      across[o + x] = s + f(src[row + idx[k + 3]!]! * w[k + 3]!);
    }
  }
  const out = new Float32Array(dw * dh);
  for (let y = 0; y < dh; y++) {
    const k = y * 4;
    const r0 = ys.idx[k]! * dw;
    const r1 = ys.idx[k + 1]! * dw;
    const r2 = ys.idx[k + 2]! * dw;
    const r3 = ys.idx[k + 3]! * dw;
    const [w0, w1, w2, w3] = [ys.w[k]!, ys.w[k + 1]!, ys.w[k + 2]!, ys.w[k + 3]!];
    const o = y * dw;
    for (let x = 0; x < dw; x++) {
      let s = f(across[r0 + x]! * w0);
      s = f(s + f(across[r1 + x]! * w1));
      s = f(s + f(across[r2 + x]! * w2));
      out[o + x] = s + f(across[r3 + x]! * w3);
    }
  }
  return out;
}

/** How a depth map is brought back to the image size. */
export type DepthResize = 'bicubic' | 'bilinear';

/**
 * ATen's CPU linear taps in float32: align_corners=False (source index clamped at 0), or with
 * `alignCorners` the corner-to-corner mapping (ZoeDepth's pre-processing uses it).
 */
export function linearTaps32(src: number, dst: number, alignCorners = false): { i0: Int32Array; i1: Int32Array; l0: Float32Array; l1: Float32Array } {
  const f = Math.fround;
  const scale = alignCorners ? (dst > 1 ? f((src - 1) / (dst - 1)) : 0) : f(src / dst);
  const i0 = new Int32Array(dst);
  const i1 = new Int32Array(dst);
  const l0 = new Float32Array(dst);
  const l1 = new Float32Array(dst);
  for (let d = 0; d < dst; d++) {
    if (src === dst) {
      i0[d] = i1[d] = d;
      l0[d] = 1;
      continue;
    }
    const real = alignCorners ? f(scale * d) : Math.max(f(f(scale * f(d + 0.5)) - 0.5), 0);
    const a = Math.min(Math.floor(real), src - 1);
    const lambda = Math.min(Math.max(f(real - a), 0), 1);
    i0[d] = a;
    i1[d] = a < src - 1 ? a + 1 : a;
    l1[d] = lambda;
    l0[d] = f(1 - lambda);
  }
  return { i0, i1, l0, l1 };
}

/**
 * Bilinear resize of a float map as PyTorch's CPU `interpolate(mode="bilinear", align_corners=False)`
 * computes it in float32: per output pixel, each of the two source rows across, then the two down.
 * Reads the `sw` x `sh` window at the top-left of a map whose rows are `stride` wide. Pure.
 */
export function resizeBilinearFloat32(src: Float32Array, sw: number, sh: number, dw: number, dh: number, stride = sw): Float32Array {
  const f = Math.fround;
  const { i0, i1, l0, l1 } = linearTaps32(sw, dw);
  const ys = linearTaps32(sh, dh);
  // Each source row across once (the values a pixel-by-pixel pass would compute for every output row).
  const across = new Float32Array(sh * dw);
  for (let y = 0; y < sh; y++) {
    const r = y * stride;
    const o = y * dw;
    for (let x = 0; x < dw; x++) {
      across[o + x] = f(src[r + i0[x]!]! * l0[x]!) + f(src[r + i1[x]!]! * l1[x]!);
    }
  }
  const out = new Float32Array(dw * dh);
  for (let y = 0; y < dh; y++) {
    const r0 = ys.i0[y]! * dw;
    const r1 = ys.i1[y]! * dw;
    const wy0 = ys.l0[y]!;
    const wy1 = ys.l1[y]!;
    const o = y * dw;
    for (let x = 0; x < dw; x++) out[o + x] = f(across[r0 + x]! * wy0) + f(across[r1 + x]! * wy1);
  }
  return out;
}
