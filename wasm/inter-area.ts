// AssemblyScript source of src/perception/inter-area-wasm.ts (build: npm run build:wasm).
//
// OpenCV's INTER_AREA shrink of interleaved 8-bit RGB, computed as cv2.resize does for 8-bit images:
// float32 weights, float32 sums (each source row across, then rows down), rounding half to even and
// saturating to 0..255. Four lanes hold R, G, B and a spare. All pointers are byte offsets into this
// module's memory, laid out by the caller:
//   src u8[sw*sh*3 + 1]   xFirst i32[dw]  xCount i32[dw]  xWeight f32[dw*xMax]
//   yFirst i32[dh]  yCount i32[dh]  yWeight f32[dh*yMax]  hsum f32[dw*3 + 4]  acc f32[dw*3 + 4]
//   out u8[dw*dh*3] (planes = 0: interleaved RGB levels) or f32[3*dw*dh] (planes = 1: B, G, R planes
//   of level / 255, FastestDet's input)
// Output row y reads source rows yFirst[y] .. + yCount[y] - 1 with weights yWeight[y*yMax ..];
// output column x reads source columns xFirst[x] .. likewise.
export function interArea(
  src: usize, sw: i32, dw: i32, dh: i32,
  xFirst: usize, xCount: usize, xWeight: usize, xMax: i32,
  yFirst: usize, yCount: usize, yWeight: usize, yMax: i32,
  hsum: usize, acc: usize, out: usize, planes: i32,
): void {
  const rowLen = dw * 3;
  let hsumRow: i32 = -1;
  for (let y = 0; y < dh; y++) {
    const rows = load<i32>(yCount + (<usize>y << 2));
    const firstRow = load<i32>(yFirst + (<usize>y << 2));
    for (let k = 0; k < rows; k++) {
      const sy = firstRow + k;
      // Consecutive output rows share at most their boundary source row: keep its sums.
      if (sy != hsumRow) {
        hsumRow = sy;
        const rowIn = src + <usize>(sy * sw * 3);
        let w = xWeight;
        let h = hsum;
        for (let x = 0; x < dw; x++) {
          let sum = f32x4.splat(0);
          const taps = load<i32>(xCount + (<usize>x << 2));
          let p = rowIn + <usize>(load<i32>(xFirst + (<usize>x << 2)) * 3);
          const end = p + <usize>(taps * 3);
          let wt = w;
          while (p < end) {
            const rgbx = f32x4.convert_i32x4_u(i32x4.extend_low_i16x8_u(i16x8.extend_low_i8x16_u(v128.load32_zero(p))));
            sum = f32x4.add(sum, f32x4.mul(rgbx, v128.load32_splat(wt)));
            p += 3;
            wt += 4;
          }
          // Four lanes stored; the spare one is overwritten by the next pixel's R.
          v128.store(h, sum);
          w += <usize>(xMax << 2);
          h += 12;
        }
      }
      const beta = f32x4.splat(load<f32>(yWeight + (<usize>(y * yMax + k) << 2)));
      if (k == 0) {
        for (let i = 0; i < rowLen; i += 4) v128.store(acc + (<usize>i << 2), f32x4.mul(v128.load(hsum + (<usize>i << 2)), beta));
      } else {
        for (let i = 0; i < rowLen; i += 4) {
          const a = acc + (<usize>i << 2);
          v128.store(a, f32x4.add(v128.load(a), f32x4.mul(v128.load(hsum + (<usize>i << 2)), beta)));
        }
      }
    }
    if (planes == 0) {
      const o = out + <usize>(y * rowLen);
      for (let i = 0; i < rowLen; i++) store<u8>(o + <usize>i, <u8>level(load<f32>(acc + (<usize>i << 2))));
    } else {
      // B, G, R planes of level / 255 (divided in float64, stored as float32).
      const plane = <usize>(dw * dh) << 2;
      let o = out + (<usize>(y * dw) << 2);
      for (let x = 0; x < dw; x++) {
        const a = acc + (<usize>(x * 3) << 2);
        store<f32>(o, <f32>(<f64>level(load<f32>(a + 8)) / 255));
        store<f32>(o + plane, <f32>(<f64>level(load<f32>(a + 4)) / 255));
        store<f32>(o + 2 * plane, <f32>(<f64>level(load<f32>(a)) / 255));
        o += 4;
      }
    }
  }
}

/** cv2's saturate_cast<uchar>(float): round half to even, then clamp to 0..255. */
// @ts-ignore: decorator
@inline function level(v: f32): f32 {
  const r = nearest<f32>(v);
  return r < 0 ? 0 : r > 255 ? 255 : r;
}
