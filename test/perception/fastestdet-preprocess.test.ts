/**
 * FastestDet pre-processing against OpenCV (cv2.imread + cv2.resize INTER_AREA to 352x352), computed
 * once with Debian's python3-opencv (test/fixtures/perception/make_fastestdet_reference.py), and the
 * pooled input arrays the ports reuse between images.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadImage } from '../../src/perception/image.js';
import { FASTESTDET_SIZE, fastestDetInput } from '../../src/perception/models/fastestdet.js';
import { prepareDepthAnything, prepareGroundingDino, prepareSam } from '../../src/perception/preprocess.js';
import { Float32Pool } from '../../src/perception/tensor-pool.js';
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
    // Patches: byte for byte, except a rare sum that lands within float error of a rounding edge.
    for (const p of r.patches) {
      const want = Buffer.from(p.bgr_base64, 'base64');
      let off = 0;
      for (let y = 0; y < p.size; y++) {
        for (let x = 0; x < p.size * 3; x++) {
          const d = Math.abs(bgr[(p.y + y) * s * 3 + p.x * 3 + x]! - want[y * p.size * 3 + x]!);
          expect(d).toBeLessThanOrEqual(1);
          off += d;
        }
      }
      expect(off).toBeLessThanOrEqual(2);
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
    for (let i = 0; i < g * g; i++) for (let c = 0; c < 3; c++) expect(Math.abs(sums[i * 3 + c]! / counts[i]! - r.grid_means[i * 3 + c]!)).toBeLessThan(0.01);
  });
});

/** Index of the first differing value, or -1 (toEqual on megabyte arrays takes seconds). */
function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

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
