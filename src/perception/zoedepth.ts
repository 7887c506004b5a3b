/**
 * ZoeDepth pre-processing as Transformers' `ZoeDepthImageProcessor` with the public checkpoint's
 * settings (Intel/zoedepth-nyu-kitti: 384x512, keep aspect, multiple of 32, mean/std 0.5): /255 to
 * float32, reflect padding by `int(sqrt(side / 2) * 3)` on each side, a float bilinear resize with
 * align_corners=True (PyTorch `interpolate`, not PIL) to the size that rule gives for the padded
 * image, then (x - 0.5) / 0.5. Pure apart from decoding a file input.
 */
import { linearTaps32 } from './interpolate.js';
import { loadImage } from './image.js';
import { roundHalfEven, type PreparedImage, type PreprocessInput, type Size } from './preprocess.js';
import type { Float32Pool } from './tensor-pool.js';
import type { RgbImage } from './types.js';

/** Padding [top/bottom, left/right] ZoeDepth adds around an image of `h` x `w`. */
export function zoePadding(h: number, w: number): Size {
  return [Math.trunc(Math.sqrt(h / 2) * 3), Math.trunc(Math.sqrt(w / 2) * 3)];
}

/**
 * ZoeDepth's size rule on the padded image: keep aspect with the scale nearer 1, each side to the
 * nearest multiple (numpy rounding, half to even).
 */
export function zoeDepthSize(h: number, w: number, height = 384, width = 512, multiple = 32): Size {
  let sh = height / h;
  let sw = width / w;
  if (Math.abs(1 - sw) < Math.abs(1 - sh)) sh = sw;
  else sw = sh;
  return [roundHalfEven((sh * h) / multiple) * multiple, roundHalfEven((sw * w) / multiple) * multiple];
}

/** numpy's `pad(mode="reflect")` index (the edge itself not repeated). */
function reflect(i: number, n: number): number {
  if (n === 1) return 0;
  const period = 2 * (n - 1);
  let m = ((i % period) + period) % period;
  if (m >= n) m = period - m;
  return m;
}

/** Decoded pixels -> ZoeDepth's input tensor (float32 CHW, [1, 3, H, W] with H, W multiples of 32). */
export function zoeDepthTensor(image: RgbImage, height = 384, width = 512, multiple = 32, pool?: Float32Pool): PreparedImage {
  const f = Math.fround;
  const { width: w, height: h, data } = image;
  const [ph, pw] = zoePadding(h, w);
  const [H, W] = [h + 2 * ph, w + 2 * pw];
  const [nh, nw] = zoeDepthSize(H, W, height, width, multiple);
  const xs = linearTaps32(W, nw, true);
  const ys = linearTaps32(H, nh, true);
  // Padded-image column/row -> source column/row.
  const col = Int32Array.from({ length: W }, (_, x) => reflect(x - pw, w));
  const row = Int32Array.from({ length: H }, (_, y) => reflect(y - ph, h));
  const lut = Float32Array.from({ length: 256 }, (_, v) => v * (1 / 255));
  const plane = nh * nw;
  const out = pool ? pool.take(3 * plane) : new Float32Array(3 * plane);
  const across = new Float32Array(2 * nw);
  for (let c = 0; c < 3; c++) {
    const base = c * plane;
    for (let y = 0; y < nh; y++) {
      const rows = [row[ys.i0[y]!]!, row[ys.i1[y]!]!];
      for (let r = 0; r < 2; r++) {
        const src = rows[r]! * w * 3 + c;
        for (let x = 0; x < nw; x++) {
          const a = lut[data[src + col[xs.i0[x]!]! * 3]!]!;
          const b = lut[data[src + col[xs.i1[x]!]! * 3]!]!;
          across[r * nw + x] = f(f(a * xs.l0[x]!) + f(b * xs.l1[x]!));
        }
      }
      const [w0, w1] = [ys.l0[y]!, ys.l1[y]!];
      for (let x = 0; x < nw; x++) {
        const v = f(f(across[x]! * w0) + f(across[nw + x]! * w1));
        out[base + y * nw + x] = f(f(v - 0.5) / 0.5);
      }
    }
  }
  return { data: out, tensorSize: [nh, nw], resized: [nh, nw], original: [h, w] };
}

/** Image file, bytes or decoded pixels -> ZoeDepth's input tensor. */
export async function prepareZoeDepth(input: PreprocessInput, height = 384, width = 512, multiple = 32, pool?: Float32Pool): Promise<PreparedImage> {
  const image = typeof input === 'object' && !(input instanceof Uint8Array) && 'data' in input ? input : await loadImage(input);
  return zoeDepthTensor(image, height, width, multiple, pool);
}
