// AssemblyScript source of src/perception/pil-resample-wasm.ts (build: npm run build:wasm).
//
// The two passes of Pillow's Resample.c for 8-bit RGB (ImagingResampleHorizontal_8bpc and
// ImagingResampleVertical_8bpc): fixed-point coefficients with 22 fractional bits (computed by the
// caller, src/perception/resize.ts), int32 sums starting at one half, then `>> 22` clipped to 0..255.
// The caller runs the horizontal pass first into an 8-bit image, then the vertical pass on it, as
// Pillow does. Integer arithmetic wraps as Pillow's int32 sums do, so the bytes are Pillow's.
// All pointers are byte offsets into this module's memory, laid out by the caller. Output pixel or
// row `i` reads `count[i]` source pixels or rows from `start[i]`, with coefficients
// `coeffs[i * ksize ..]` (i32).

const SHIFT: i32 = 22;
const HALF: i32 = 1 << (SHIFT - 1);

/** Four int32 sums -> four bytes: `>> 22`, saturated to 0..255 (Pillow's clip8), in the low lanes. */
// @ts-ignore: decorator
@inline function clip8(sum: v128): v128 {
  const s16 = i16x8.narrow_i32x4_s(i32x4.shr_s(sum, SHIFT), sum);
  return i8x16.narrow_i16x8_u(s16, s16);
}

/** Bytes r0 g0 b0 r1 g1 b1 of two pixels at `p` -> 16-bit lanes r0 r1 g0 g1 b0 b1 0 0. */
// @ts-ignore: decorator
@inline function pixelPair(p: usize): v128 {
  return i8x16.shuffle(v128.load64_zero(p), i32x4.splat(0), 0, 16, 3, 16, 1, 16, 4, 16, 2, 16, 5, 16, 16, 16, 16, 16);
}

/** Pillow's int32 sum from the split sums, plus one half, clipped: four bytes (R, G, B, spare). */
// @ts-ignore: decorator
@inline function finish(hi: v128, lo: v128): v128 {
  return clip8(i32x4.add(i32x4.add(i32x4.shl(hi, 8), lo), i32x4.splat(HALF)));
}

/**
 * Horizontal pass over `rows` rows of interleaved RGB, `sw` pixels wide, into rows of `dw` pixels.
 * Taps go in pairs, each pair's two coefficients split into a high part (k >> 8) and a low part
 * (k & 255) that fit in 16 bits, so that one `i32x4.dot_i16x8_s` adds two taps of R, G and B:
 * sum = (hi << 8) + lo, the same int32 as Pillow's (wrapping alike). `coeffs` holds, per output
 * pixel, `ksize` pairs of two u32 words: hi parts (tap 0 in the low 16 bits), lo parts; `pairs[x]`
 * says how many are used. An odd tap count is padded with a zero coefficient. Two rows at a time
 * share the coefficient loads. `src` needs 8 readable bytes past its last pixel, `out` 1 writable
 * byte past its last pixel.
 */
export function horizontal(
  src: usize, sw: i32, rows: i32, dw: i32,
  start: usize, pairs: usize, coeffs: usize, ksize: i32, out: usize,
): void {
  const kstride = <usize>(ksize << 3);
  const inStride = <usize>(sw * 3);
  const outStride = <usize>(dw * 3);
  const zero = i32x4.splat(0);
  for (let y = 0; y < rows; y += 2) {
    // A last odd row is done twice over itself (same bytes), so the loop has no branch.
    const nextIn = y + 1 < rows ? inStride : 0;
    const nextOut = y + 1 < rows ? outStride : 0;
    const rowIn = src + <usize>y * inStride;
    const rowOut = out + <usize>y * outStride;
    let o = rowOut;
    let k = coeffs;
    let firstR: u8 = 0;
    for (let x = 0; x < dw; x++) {
      let hi0 = zero;
      let lo0 = zero;
      let hi1 = zero;
      let lo1 = zero;
      let p = rowIn + <usize>(load<i32>(start + (<usize>x << 2)) * 3);
      const end = k + (<usize>load<i32>(pairs + (<usize>x << 2)) << 3);
      for (let kk = k; kk < end; kk += 8) {
        const ch = v128.load32_splat(kk);
        const cl = v128.load32_splat(kk + 4);
        const a = pixelPair(p);
        const b = pixelPair(p + nextIn);
        hi0 = i32x4.add(hi0, i32x4.dot_i16x8_s(a, ch));
        lo0 = i32x4.add(lo0, i32x4.dot_i16x8_s(a, cl));
        hi1 = i32x4.add(hi1, i32x4.dot_i16x8_s(b, ch));
        lo1 = i32x4.add(lo1, i32x4.dot_i16x8_s(b, cl));
        p += 6;
      }
      // Four bytes stored per pixel; the spare one is overwritten by the next pixel's R.
      v128.store32_lane(o, finish(hi0, lo0), 0);
      const b = finish(hi1, lo1);
      v128.store32_lane(o + nextOut, b, 0);
      if (x == 0) firstR = i8x16.extract_lane_u(b, 0);
      o += 3;
      k += kstride;
    }
    // The first row's spare byte after its last pixel fell on the second row's first R.
    store<u8>(rowOut + nextOut, firstR);
  }
}

/**
 * Vertical pass: rows of `rowLen` bytes (any interleaving) to `dh` rows. Sixteen bytes per step;
 * `src` needs 16 readable bytes past its last row, `out` 16 writable bytes past its last row.
 */
export function vertical(
  src: usize, rowLen: i32, dh: i32,
  start: usize, count: usize, coeffs: usize, ksize: i32, out: usize,
): void {
  const stride = <usize>rowLen;
  for (let y = 0; y < dh; y++) {
    const n = load<i32>(count + (<usize>y << 2));
    const first = src + <usize>load<i32>(start + (<usize>y << 2)) * stride;
    const k = coeffs + (<usize>(y * ksize) << 2);
    const o = out + <usize>y * stride;
    for (let j: usize = 0; j < stride; j += 16) {
      let a0 = i32x4.splat(HALF);
      let a1 = a0;
      let a2 = a0;
      let a3 = a0;
      let p = first + j;
      for (let i = 0; i < n; i++) {
        const c = v128.load32_splat(k + (<usize>i << 2));
        const v = v128.load(p);
        const lo = i16x8.extend_low_i8x16_u(v);
        const hi = i16x8.extend_high_i8x16_u(v);
        a0 = i32x4.add(a0, i32x4.mul(i32x4.extend_low_i16x8_u(lo), c));
        a1 = i32x4.add(a1, i32x4.mul(i32x4.extend_high_i16x8_u(lo), c));
        a2 = i32x4.add(a2, i32x4.mul(i32x4.extend_low_i16x8_u(hi), c));
        a3 = i32x4.add(a3, i32x4.mul(i32x4.extend_high_i16x8_u(hi), c));
        p += stride;
      }
      const lo16 = i16x8.narrow_i32x4_s(i32x4.shr_s(a0, SHIFT), i32x4.shr_s(a1, SHIFT));
      const hi16 = i16x8.narrow_i32x4_s(i32x4.shr_s(a2, SHIFT), i32x4.shr_s(a3, SHIFT));
      v128.store(o + j, i8x16.narrow_i16x8_u(lo16, hi16));
    }
  }
}
