/**
 * OpenCV's INTER_AREA resize (FastestDet's pre-processing), byte-identical to cv2.resize for 8-bit RGB
 * (checked against OpenCV 4.6 on the sample photos, shrinking and enlarging).
 * - Shrinking runs as a small WebAssembly SIMD kernel (wasm/inter-area.ts, embedded by
 *   `npm run build:wasm`) computing as cv2 does: float32 weights and sums, rounding half to even.
 *   Measured here: about 2.5 ms per photo to 352x352, against about 9 ms for the same arithmetic in
 *   JavaScript (which, in float64, also differed from OpenCV in 24 values).
 * - When a side grows, cv2 interpolates linearly instead; that rarer path is plain JavaScript.
 */
import { GsrError } from '../util/errors.js';
import { INTER_AREA_WASM } from './inter-area-wasm.js';
import { roundHalfEven } from './preprocess.js';
import { lazyKernel, WasmLayout } from './wasm.js';

type Kernel = (
  src: number, sw: number, dw: number, dh: number,
  xFirst: number, xCount: number, xWeight: number, xMax: number,
  yFirst: number, yCount: number, yWeight: number, yMax: number,
  hsum: number, acc: number, out: number, planes: number,
) => void;

const kernel = lazyKernel<{ interArea: Kernel }>(INTER_AREA_WASM);

/** INTER_AREA taps for one axis (cv2's computeResizeAreaTab): output `d` reads `count[d]` cells from `first[d]`. */
function areaTaps(src: number, dst: number): { first: Int32Array; count: Int32Array; weight: Float32Array; maxCount: number } {
  const scale = src / dst;
  const maxCount = Math.ceil(scale) + 2;
  const first = new Int32Array(dst);
  const count = new Int32Array(dst);
  // Weights are computed in float64 and stored as float32, as cv2 does.
  const weight = new Float32Array(dst * maxCount);
  for (let d = 0; d < dst; d++) {
    const f1 = d * scale;
    const f2 = f1 + scale;
    const s1 = Math.ceil(f1);
    const s2 = Math.floor(f2);
    const cell = Math.min(scale, src - f1);
    let n = 0;
    const put = (index: number, w: number) => {
      if (n === 0) first[d] = index;
      weight[d * maxCount + n++] = w;
    };
    if (s1 - f1 > 1e-3 && s1 - 1 >= 0) put(s1 - 1, (s1 - f1) / cell);
    for (let s = s1; s < s2 && s < src; s++) put(s, 1 / cell);
    if (f2 - s2 > 1e-3 && s2 < src) put(s2, Math.min(Math.min(f2 - s2, 1), cell) / cell);
    count[d] = n;
  }
  return { first, count, weight, maxCount };
}

/**
 * Runs the kernel on interleaved 8-bit RGB. `planes` false: interleaved RGB levels (u8); true: B, G, R
 * planes of level / 255 (float32, FastestDet's input). Returns the output's byte offset in `buf`.
 */
function run(src: Uint8Array, sw: number, sh: number, dw: number, dh: number, planes: boolean): { buf: ArrayBuffer; out: number } {
  const { memory, fns } = kernel();
  const xt = areaTaps(sw, dw);
  const yt = areaTaps(sh, dh);
  const layout = new WasmLayout();
  // The image gets 4 spare bytes (the kernel reads 4 bytes per 3-byte pixel).
  const at = {
    src: layout.block(src.length + 4), xFirst: layout.block(dw * 4), xCount: layout.block(dw * 4), xWeight: layout.block(xt.weight.byteLength),
    yFirst: layout.block(dh * 4), yCount: layout.block(dh * 4), yWeight: layout.block(yt.weight.byteLength),
    hsum: layout.block((dw * 3 + 4) * 4), acc: layout.block((dw * 3 + 4) * 4), out: layout.block(dw * dh * 3 * (planes ? 4 : 1)),
  };
  const buf = layout.commit(memory);
  new Uint8Array(buf, at.src, src.length).set(src);
  new Int32Array(buf, at.xFirst, dw).set(xt.first);
  new Int32Array(buf, at.xCount, dw).set(xt.count);
  new Float32Array(buf, at.xWeight, xt.weight.length).set(xt.weight);
  new Int32Array(buf, at.yFirst, dh).set(yt.first);
  new Int32Array(buf, at.yCount, dh).set(yt.count);
  new Float32Array(buf, at.yWeight, yt.weight.length).set(yt.weight);
  fns.interArea(at.src, sw, dw, dh, at.xFirst, at.xCount, at.xWeight, xt.maxCount, at.yFirst, at.yCount, at.yWeight, yt.maxCount, at.hsum, at.acc, at.out, planes ? 1 : 0);
  return { buf, out: at.out };
}

function checkSizes(src: Uint8Array, sw: number, sh: number, dw: number, dh: number): void {
  if (![sw, sh, dw, dh].every((v) => Number.isInteger(v) && v > 0)) throw new GsrError(`INTER_AREA: sizes must be positive integers, got ${sw}x${sh} -> ${dw}x${dh}`);
  if (src.length !== sw * sh * 3) throw new GsrError(`INTER_AREA: ${src.length} bytes for a ${sw}x${sh} RGB image`);
}

/** OpenCV INTER_AREA resize of interleaved 8-bit RGB (HWC), as cv2.resize gives it. */
export function resizeAreaRgb(src: Uint8Array, sw: number, sh: number, dw: number, dh: number): Uint8Array {
  checkSizes(src, sw, sh, dw, dh);
  if (dw > sw || dh > sh) return areaEnlarge(src, sw, sh, dw, dh);
  const { buf, out } = run(src, sw, sh, dw, dh, false);
  return new Uint8Array(buf, out, dw * dh * 3).slice();
}

/** cv2's two-tap coefficients for INTER_AREA on an axis that is not shrunk on both sides, in 1/2048ths. */
function enlargeTaps(src: number, dst: number): { first: Int32Array; w0: Int32Array; w1: Int32Array; single: number } {
  const inv = dst / src;
  const scale = 1 / inv;
  const first = new Int32Array(dst);
  const w0 = new Int32Array(dst);
  const w1 = new Int32Array(dst);
  let single = dst; // from here on, one tap (the last source cell)
  for (let d = 0; d < dst; d++) {
    let s = Math.floor(d * scale);
    let f = Math.fround(d + 1 - (s + 1) * inv);
    f = f <= 0 ? 0 : Math.fround(f - Math.floor(f));
    if (s + 1 >= src) {
      single = Math.min(single, d);
      if (s >= src - 1) {
        f = 0;
        s = src - 1;
      }
    }
    first[d] = s;
    w0[d] = roundHalfEven(Math.fround(1 - f) * 2048);
    w1[d] = roundHalfEven(f * 2048);
  }
  return { first, w0, w1, single };
}

/** Signed 16-bit multiply, high half (as _mm_mulhi_epi16). */
function mulHi16(a: number, b: number): number {
  return (a * b) >> 16;
}

/**
 * INTER_AREA when a side grows: cv2 then interpolates linearly between two cells per axis with its
 * area-mode coefficients, in fixed point (11 bits per axis), as its resizeGeneric_ does for 8-bit
 * images. Plain JavaScript: FastestDet's inputs rarely take this path.
 */
function areaEnlarge(src: Uint8Array, sw: number, sh: number, dw: number, dh: number): Uint8Array {
  const xt = enlargeTaps(sw, dw);
  const yt = enlargeTaps(sh, dh);
  const rowLen = dw * 3;
  const horizontal = (sy: number, into: Int32Array) => {
    const row = sy * sw * 3;
    for (let x = 0; x < dw; x++) {
      const p = row + xt.first[x]! * 3;
      for (let c = 0; c < 3; c++) into[x * 3 + c] = x < xt.single ? src[p + c]! * xt.w0[x]! + src[p + 3 + c]! * xt.w1[x]! : src[p + c]! * 2048;
    }
  };
  const out = new Uint8Array(dh * rowLen);
  const r0 = new Int32Array(rowLen);
  const r1 = new Int32Array(rowLen);
  for (let y = 0; y < dh; y++) {
    const sy = yt.first[y]!;
    horizontal(sy, r0);
    horizontal(Math.min(sy + 1, sh - 1), r1);
    const b0 = yt.w0[y]!;
    const b1 = yt.w1[y]!;
    const o = y * rowLen;
    // cv2's 8-bit rows: 16-bit multiplies keeping the high half, then a rounding shift (its SIMD loop
    // and its scalar tail compute the same).
    for (let i = 0; i < rowLen; i++) {
      const v = (mulHi16(r0[i]! >> 4, b0) + mulHi16(r1[i]! >> 4, b1) + 2) >> 2;
      out[o + i] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
  }
  return out;
}

/**
 * The INTER_AREA resize written as B, G, R float32 planes of level / 255 (FastestDet's input) into
 * `into`, which must hold 3 * dw * dh values.
 */
export function interAreaBgrPlanes(src: Uint8Array, sw: number, sh: number, dw: number, dh: number, into: Float32Array): Float32Array {
  checkSizes(src, sw, sh, dw, dh);
  if (into.length !== 3 * dw * dh) throw new GsrError(`INTER_AREA: output holds ${into.length} values, need ${3 * dw * dh}`);
  if (dw > sw || dh > sh) {
    const rgb = areaEnlarge(src, sw, sh, dw, dh);
    const plane = dw * dh;
    for (let i = 0, p = 0; i < plane; i++, p += 3) {
      into[i] = rgb[p + 2]! / 255;
      into[plane + i] = rgb[p + 1]! / 255;
      into[2 * plane + i] = rgb[p]! / 255;
    }
    return into;
  }
  const { buf, out } = run(src, sw, sh, dw, dh, true);
  into.set(new Float32Array(buf, out, 3 * dw * dh));
  return into;
}
