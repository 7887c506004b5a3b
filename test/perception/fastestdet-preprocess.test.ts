/**
 * FastestDet pre-processing against OpenCV (cv2.imread + cv2.resize INTER_AREA to 352x352, and other
 * sizes), computed with OpenCV by test/fixtures/perception/make_fastestdet_reference.py on the
 * project's test images (and, as an optional check, on the What'sUp sample photos beside the
 * repository); the embedded WebAssembly kernel against its source; and the pooled input arrays the
 * ports reuse.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadImage } from '../../src/perception/image.js';
import { FASTESTDET_SIZE, fastestDetInput } from '../../src/perception/models/fastestdet.js';
import { prepareDepthAnything, prepareGroundingDino, prepareSam } from '../../src/perception/preprocess.js';
import { Float32Pool } from '../../src/perception/tensor-pool.js';
import { resizeAreaRgb } from '../../src/perception/inter-area.js';
import type { RgbImage } from '../../src/perception/types.js';
import { GsrError } from '../../src/util/errors.js';
import { describeShared } from '../helpers/shared.js';
import { FIXTURES, IMAGES } from './paths.js';

interface Stats {
  width: number;
  height: number;
  mean: number[];
  grid_means: number[];
  patches: Array<{ x: number; y: number; size: number; bgr_base64: string }>;
}
interface Reference {
  opencv: string;
  size: number;
  grid: number;
  images: Array<{ file: string; decoded_bgr_sha256?: string; resized: Stats; resized_bgr_sha256?: string }>;
  small_images?: Array<{ file: string; resized_bgr_sha256: string }>;
  other_sizes: Array<{ file: string; width: number; height: number; rgb_sha256: string }>;
  small_to_352: { file: string; via: [number, number]; rgb_sha256: string };
}
const read = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as Reference;
const ref = read('fastestdet-reference.json');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The tensor back in 8-bit BGR, HWC, as cv2 holds it. */
function bgrOf(t: Float32Array): Uint8Array {
  const s = FASTESTDET_SIZE;
  const plane = s * s;
  const out = new Uint8Array(plane * 3);
  for (let i = 0; i < plane; i++) for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(t[c * plane + i]! * 255);
  return out;
}

const swapRb = (rgb: Uint8Array) => rgb.map((_, i, a) => a[i - (i % 3) + 2 - (i % 3)]!);

/** The port's input for one image against cv2's resize: every byte where stored, patches and grid means. */
function expectLikeCv2(image: RgbImage, r: Reference['images'][number], grid: number): void {
  const s = FASTESTDET_SIZE;
  expect([r.resized.width, r.resized.height]).toEqual([s, s]);
  if (r.decoded_bgr_sha256) expect(sha(swapRb(image.data)), 'decoded as cv2.imread').toBe(r.decoded_bgr_sha256);
  const bgr = bgrOf(fastestDetInput(image));
  // Patches: byte for byte.
  for (const p of r.resized.patches) {
    const want = Buffer.from(p.bgr_base64, 'base64');
    const got = Buffer.alloc(want.length);
    for (let y = 0; y < p.size; y++) got.set(bgr.subarray((p.y + y) * s * 3 + p.x * 3, (p.y + y) * s * 3 + (p.x + p.size) * 3), y * p.size * 3);
    expect(got.equals(want)).toBe(true);
  }
  const sums = new Float64Array(grid * grid * 3);
  const counts = new Float64Array(grid * grid);
  for (let y = 0; y < s; y++) {
    for (let x = 0; x < s; x++) {
      const cell = Math.floor((y * grid) / s) * grid + Math.floor((x * grid) / s);
      counts[cell]++;
      for (let c = 0; c < 3; c++) sums[cell * 3 + c] += bgr[(y * s + x) * 3 + c]!;
    }
  }
  // The reference rounds grid means to 3 decimals.
  for (let i = 0; i < grid * grid; i++) for (let c = 0; c < 3; c++) expect(Math.abs(sums[i * 3 + c]! / counts[i]! - r.resized.grid_means[i * 3 + c]!)).toBeLessThan(0.0006);
  if (r.resized_bgr_sha256) expect(sha(bgr), 'every byte').toBe(r.resized_bgr_sha256);
}

/** The other sizes of one image, byte for byte (sha256 of the RGB bytes). */
function otherSizeTests(reference: Reference, root: string): void {
  it.each(reference.other_sizes.map((o) => [`${o.width}x${o.height}`, o] as const))('%s is byte-identical to cv2', async (_size, o) => {
    const im = await loadImage(join(root, o.file));
    expect(sha(resizeAreaRgb(im.data, im.width, im.height, o.width, o.height))).toBe(o.rgb_sha256);
  });

  it('a 320x240 image enlarged to FastestDet\'s 352x352 input is byte-identical to cv2', async () => {
    const im = await loadImage(join(root, reference.small_to_352.file));
    const [w, h] = reference.small_to_352.via;
    const small = { data: resizeAreaRgb(im.data, im.width, im.height, w, h), width: w, height: h };
    expect(sha(resizeAreaRgb(small.data, w, h, FASTESTDET_SIZE, FASTESTDET_SIZE))).toBe(reference.small_to_352.rgb_sha256);
    expect(sha(swapRb(bgrOf(fastestDetInput(small))))).toBe(reference.small_to_352.rgb_sha256);
  });
}

describe(`FastestDet input matches OpenCV INTER_AREA on the project's images (reference: OpenCV ${ref.opencv})`, () => {
  it.each(ref.images.map((im) => [im.file, im] as const))('%s', async (file, r) => {
    expectLikeCv2(await loadImage(join(FIXTURES, file)), r, ref.grid);
  });

  it.each(ref.small_images!.map((im) => [im.file, im] as const))('%s (enlarged: every byte)', async (file, r) => {
    expect(sha(bgrOf(fastestDetInput(await loadImage(join(FIXTURES, file)))))).toBe(r.resized_bgr_sha256);
  });
});

describeShared("FastestDet input matches OpenCV INTER_AREA on the What'sUp sample photos", ['whatsupSample'], ({ whatsupSample }) => {
  // Our own figures, made by make_fastestdet_reference.py --photos from the photos beside the repository.
  const photos = read('fastestdet-reference.whatsup-sample.json');
  const root = join(whatsupSample, 'data');
  it.each(photos.images.map((im) => [im.file, im] as const))('%s', async (file, r) => {
    expectLikeCv2(await loadImage(join(root, file)), r, photos.grid);
  });
  otherSizeTests(photos, root);
});

/** Index of the first differing value, or -1 (toEqual on megabyte arrays takes seconds). */
function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

describe('INTER_AREA to other sizes', () => {
  otherSizeTests(ref, FIXTURES);

  it('rejects sizes that do not fit the data', () => {
    expect(() => resizeAreaRgb(new Uint8Array(12), 2, 2, 0, 1)).toThrow(GsrError);
    expect(() => resizeAreaRgb(new Uint8Array(11), 2, 2, 1, 1)).toThrow(/11 bytes for a 2x2 RGB image/);
  });

  it('the embedded WebAssembly is the build of wasm/inter-area.ts', async () => {
    const { compileKernel, generatedModule, KERNELS } = await import('../../wasm/build.js');
    expect(readFileSync(KERNELS.interArea.generated, 'utf8')).toBe(generatedModule(KERNELS.interArea, await compileKernel(KERNELS.interArea)));
  });
});

describe('pooled input arrays', () => {
  const [big, small] = [join(IMAGES, 'render-1127x843.jpg'), join(IMAGES, 'render-640x480.jpg')];

  it('a reused array gives the same tensor as a fresh one, padding included', async () => {
    const pool = new Float32Pool();
    for (const [name, prepare] of [
      ['sam', (f: string, p?: Float32Pool) => prepareSam(f, 1024, p)],
      ['grounding-dino', (f: string, p?: Float32Pool) => prepareGroundingDino(f, p)],
      ['depth', (f: string, p?: Float32Pool) => prepareDepthAnything(f, 518, 14, p)],
    ] as const) {
      // Fill the pool with a larger image's values first, so stale data would show.
      const first = await prepare(big, pool);
      first.data.fill(7);
      pool.give(first.data);
      const reused = await prepare(small, pool);
      expect(reused.data.buffer, name).toBe(first.data.buffer);
      expect(firstDifference(reused.data, (await prepare(small)).data), name).toBe(-1);
      pool.give(reused.data);
    }
    const image = await loadImage(small);
    const a = fastestDetInput(image, pool);
    a.fill(3);
    pool.give(a);
    expect(firstDifference(fastestDetInput(image, pool), fastestDetInput(image))).toBe(-1);
  });

  it('an array is never lent twice at once', () => {
    const pool = new Float32Pool();
    const a = pool.take(100);
    pool.give(a);
    const b = pool.take(50);
    const c = pool.take(50);
    expect(b.buffer).toBe(a.buffer);
    expect(c.buffer).not.toBe(b.buffer);
    expect([b.length, b.byteOffset]).toEqual([50, 0]);
  });
});
