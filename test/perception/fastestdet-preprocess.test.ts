/**
 * FastestDet pre-processing against OpenCV (cv2.imread + cv2.resize INTER_AREA to 352x352, and other
 * sizes), computed once with Debian's python3-opencv (test/fixtures/perception/make_fastestdet_reference.py);
 * the embedded WebAssembly kernel against its source; and the pooled input arrays the ports reuse.
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
import { GsrError } from '../../src/util/errors.js';
import { FIXTURES, SAMPLE_PHOTOS, SAMPLE_ROOT } from './paths.js';

interface Stats {
  width: number;
  height: number;
  mean: number[];
  grid_means: number[];
  patches: Array<{ x: number; y: number; size: number; bgr_base64: string }>;
}
const ref = JSON.parse(readFileSync(join(FIXTURES, 'fastestdet-reference.json'), 'utf8')) as {
  size: number;
  grid: number;
  images: Array<{ file: string; resized: Stats }>;
  other_sizes: Array<{ file: string; width: number; height: number; rgb_sha256: string }>;
  small_to_352: { file: string; via: [number, number]; rgb_sha256: string };
};

/** The tensor back in 8-bit BGR, HWC, as cv2 holds it. */
function bgrOf(t: Float32Array): Uint8Array {
  const s = FASTESTDET_SIZE;
  const plane = s * s;
  const out = new Uint8Array(plane * 3);
  for (let i = 0; i < plane; i++) for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(t[c * plane + i]! * 255);
  return out;
}

describe('FastestDet input matches OpenCV INTER_AREA on the real photos', () => {
  it.each(ref.images.map((im) => [im.file, im.resized] as const))('%s', async (file, r) => {
    const s = FASTESTDET_SIZE;
    expect([r.width, r.height]).toEqual([s, s]);
    const bgr = bgrOf(fastestDetInput(await loadImage(join(SAMPLE_ROOT, file))));
    // Patches: byte for byte.
    for (const p of r.patches) {
      const want = Buffer.from(p.bgr_base64, 'base64');
      const got = Buffer.alloc(want.length);
      for (let y = 0; y < p.size; y++) got.set(bgr.subarray((p.y + y) * s * 3 + p.x * 3, (p.y + y) * s * 3 + (p.x + p.size) * 3), y * p.size * 3);
      expect(got.equals(want)).toBe(true);
    }
    const g = ref.grid;
    const sums = new Float64Array(g * g * 3);
    const counts = new Float64Array(g * g);
    for (let y = 0; y < s; y++) {
      for (let x = 0; x < s; x++) {
        const cell = Math.floor((y * g) / s) * g + Math.floor((x * g) / s);
        counts[cell]++;
        for (let c = 0; c < 3; c++) sums[cell * 3 + c] += bgr[(y * s + x) * 3 + c]!;
      }
    }
    // The reference rounds grid means to 3 decimals.
    for (let i = 0; i < g * g; i++) for (let c = 0; c < 3; c++) expect(Math.abs(sums[i * 3 + c]! / counts[i]! - r.grid_means[i * 3 + c]!)).toBeLessThan(0.0006);
  });
});

/** Index of the first differing value, or -1 (toEqual on megabyte arrays takes seconds). */
function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

describe('INTER_AREA to other sizes', () => {
  it.each(ref.other_sizes.map((o) => [`${o.width}x${o.height}`, o] as const))('%s is byte-identical to cv2', async (_size, o) => {
    const im = await loadImage(join(SAMPLE_ROOT, o.file));
    const rgb = resizeAreaRgb(im.data, im.width, im.height, o.width, o.height);
    expect(createHash('sha256').update(rgb).digest('hex')).toBe(o.rgb_sha256);
  });

  it('a 320x240 image enlarged to FastestDet\'s 352x352 input is byte-identical to cv2', async () => {
    const im = await loadImage(join(SAMPLE_ROOT, ref.small_to_352.file));
    const [w, h] = ref.small_to_352.via;
    const small = { data: resizeAreaRgb(im.data, im.width, im.height, w, h), width: w, height: h };
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    expect(sha(resizeAreaRgb(small.data, w, h, FASTESTDET_SIZE, FASTESTDET_SIZE))).toBe(ref.small_to_352.rgb_sha256);
    expect(sha(bgrOf(fastestDetInput(small)).map((_, i, a) => a[i - (i % 3) + 2 - (i % 3)]!))).toBe(ref.small_to_352.rgb_sha256);
  });

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
  const [big, small] = [join(SAMPLE_ROOT, SAMPLE_PHOTOS[4]!), join(SAMPLE_ROOT, SAMPLE_PHOTOS[14]!)];

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
