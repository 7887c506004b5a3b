/**
 * Pre-processing against PIL references computed once with Debian's python3-pil
 * (test/fixtures/perception/make_preprocess_reference.py) on the 16 real photos.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadImage } from '../../src/perception/image.js';
import {
  IMAGENET_MEAN,
  IMAGENET_STD,
  dptSize,
  groundingDinoSize,
  prepareDepthAnything,
  prepareGroundingDino,
  prepareSam,
  roundHalfEven,
  samSize,
  type PreparedImage,
  type PreprocessInput,
} from '../../src/perception/preprocess.js';
import { FIXTURES, SAMPLE_ROOT } from './paths.js';

interface Stats {
  width: number;
  height: number;
  mean: number[];
  grid_means: number[];
  patches: Array<{ x: number; y: number; size: number; rgb_base64: string }>;
}
interface Reference {
  grid: number;
  images: Array<{ file: string; width: number; height: number; resized: Record<string, Stats> }>;
}
const ref = JSON.parse(readFileSync(join(FIXTURES, 'preprocess-reference.json'), 'utf8')) as Reference;

describe('size rules', () => {
  it('GroundingDINO: shortest edge 800, longest at most 1333, truncating', () => {
    expect(groundingDinoSize(843, 1127)).toEqual([800, 1069]);
    expect(groundingDinoSize(480, 640)).toEqual([800, 1066]);
    expect(groundingDinoSize(500, 2000)).toEqual([333, 1333]);
    expect(groundingDinoSize(800, 600)).toEqual([1066, 800]);
    expect(groundingDinoSize(800, 1000)).toEqual([800, 1000]);
  });
  it('SAM: longest edge 1024, other edge rounded to nearest', () => {
    expect(samSize(843, 1127)).toEqual([766, 1024]);
    expect(samSize(480, 640)).toEqual([768, 1024]);
    expect(samSize(1000, 333)).toEqual([1024, 341]);
  });
  it('Depth Anything: keep aspect, multiple of 14, Python rounding', () => {
    expect(dptSize(843, 1127)).toEqual([518, 686]);
    expect(dptSize(748, 1124)).toEqual([518, 784]);
    expect(roundHalfEven(2.5)).toBe(2);
    expect(roundHalfEven(3.5)).toBe(4);
  });
});

const MODELS: Array<[string, (i: PreprocessInput) => Promise<PreparedImage>]> = [
  ['grounding-dino-tiny', prepareGroundingDino],
  ['sam', prepareSam],
  ['depth-anything-v2', prepareDepthAnything],
];

/** Grey level of tensor value `v` in channel `c` (undoing ImageNet normalisation). */
const grey = (v: number, c: number) => (v * IMAGENET_STD[c]! + IMAGENET_MEAN[c]!) * 255;

function compare(p: PreparedImage, r: Stats, grid: number) {
  const [h, w] = p.resized;
  const [, tw] = p.tensorSize;
  const plane = p.tensorSize[0] * tw;
  const at = (x: number, y: number, c: number) => grey(p.data[c * plane + y * tw + x]!, c);
  let patchSum = 0;
  let patchN = 0;
  let patchMax = 0;
  for (const patch of r.patches) {
    const bytes = Buffer.from(patch.rgb_base64, 'base64');
    let i = 0;
    for (let y = patch.y; y < patch.y + patch.size; y++) {
      for (let x = patch.x; x < patch.x + patch.size; x++) {
        for (let c = 0; c < 3; c++) {
          const d = Math.abs(at(x, y, c) - bytes[i++]!);
          patchSum += d;
          patchN++;
          patchMax = Math.max(patchMax, d);
        }
      }
    }
  }
  // Sums in tensor units; grey() is linear, so the grey mean is grey() of the tensor mean.
  const sums = new Float64Array(grid * grid * 3);
  const counts = new Float64Array(grid * grid);
  const mean = [0, 0, 0];
  const colCell = Int32Array.from({ length: w }, (_, x) => Math.floor((x * grid) / w));
  for (let c = 0; c < 3; c++) {
    const base = c * plane;
    for (let y = 0; y < h; y++) {
      const rowCell = Math.floor((y * grid) / h) * grid;
      const row = base + y * tw;
      for (let x = 0; x < w; x++) sums[(rowCell + colCell[x]!) * 3 + c] += p.data[row + x]!;
    }
  }
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) counts[Math.floor((y * grid) / h) * grid + colCell[x]!]++;
  for (let i = 0; i < grid * grid; i++) {
    for (let c = 0; c < 3; c++) {
      mean[c] += sums[i * 3 + c]!;
      sums[i * 3 + c] = grey(sums[i * 3 + c]! / counts[i]!, c);
    }
  }
  for (let c = 0; c < 3; c++) mean[c] = grey(mean[c]! / (w * h), c) * w * h;
  let gridMax = 0;
  for (let i = 0; i < grid * grid; i++) {
    for (let c = 0; c < 3; c++) gridMax = Math.max(gridMax, Math.abs(sums[i * 3 + c]! - r.grid_means[i * 3 + c]!));
  }
  const meanDiff = Math.max(...mean.map((m, c) => Math.abs(m / (w * h) - r.mean[c]!)));
  return { patchMad: patchSum / patchN, patchMax, gridMax, meanDiff };
}

describe.each(MODELS)('%s pre-processing matches PIL on the real photos', (name, prepare) => {
  it.each(ref.images.map((im) => [im.file, im] as const))('%s', async (file, im) => {
    const r = im.resized[name]!;
    const path = join(SAMPLE_ROOT, file);
    // Both entry points: from the file (one sharp pass) and from decoded pixels (what the ports get).
    for (const input of [path, await loadImage(path)]) {
      const p = await prepare(input);
      expect(p.resized).toEqual([r.height, r.width]);
      expect(p.original).toEqual([im.height, im.width]);
      if (name === 'sam') expect(p.tensorSize).toEqual([1024, 1024]);
      const d = compare(p, r, ref.grid);
      // Enlarging goes through the port of PIL's resampler: the same bytes as PIL.
      if (r.height > im.height) expect(d.patchMax).toBeLessThan(1e-3);
      // In grey levels: well under one on average; sharp's shrink rounds a rare pixel 2 levels off.
      expect(d.patchMad).toBeLessThan(0.25);
      expect(d.patchMax).toBeLessThan(2.01);
      expect(d.meanDiff).toBeLessThan(0.15);
      expect(d.gridMax).toBeLessThan(0.25);
    }
  });
});

describe('SAM padding', () => {
  it('zero-pads (after normalisation) below the resized image', async () => {
    const p = await prepareSam(join(SAMPLE_ROOT, 'controlled_clevr/mug_left_of_plate.jpeg'));
    const [h] = p.resized;
    const plane = 1024 * 1024;
    for (let c = 0; c < 3; c++) {
      expect(p.data[c * plane + h * 1024]).toBe(0);
      expect(p.data[c * plane + 1023 * 1024 + 1023]).toBe(0);
      expect(p.data[c * plane + (h - 1) * 1024]).not.toBe(0);
    }
  });
});

describe('EXIF orientation in the one-pass file path', () => {
  it('resizes the displayed (rotated) image, like decoding first', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const sharp = (await import('sharp')).default;
    // Stored 2000x1000 with a left/right split, orientation 6: displayed 1000x2000, split top/bottom.
    const path = join(mkdtempSync(join(tmpdir(), 'gsr-exif-')), 'rot.jpg');
    const half = await sharp({ create: { width: 1000, height: 1000, channels: 3, background: { r: 230, g: 20, b: 20 } } }).png().toBuffer();
    await sharp({ create: { width: 2000, height: 1000, channels: 3, background: { r: 20, g: 20, b: 230 } } })
      .composite([{ input: half, left: 0, top: 0 }])
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toFile(path);
    const fromFile = await prepareGroundingDino(path);
    const fromPixels = await prepareGroundingDino(await loadImage(path));
    expect(fromFile.original).toEqual([2000, 1000]);
    expect(fromFile.resized).toEqual(groundingDinoSize(2000, 1000));
    expect(fromPixels.resized).toEqual(fromFile.resized);
    let maxDiff = 0;
    for (let i = 0; i < fromFile.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(fromFile.data[i]! - fromPixels.data[i]!));
    expect(maxDiff * 255 * 0.229).toBeLessThan(1.01);
    // Top is red, bottom blue (channel 0 = R).
    const [h, w] = fromFile.resized;
    expect(grey(fromFile.data[10 * w + 10]!, 0)).toBeGreaterThan(200);
    expect(grey(fromFile.data[(h - 10) * w + 10]!, 0)).toBeLessThan(60);
  });
});
