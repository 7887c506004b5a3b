/**
 * Decoding and pre-processing against PIL: decoded bytes against Transformers' `load_image` and
 * resized bytes against Pillow's `Image.resize` (SHA-256 digests and crops made by
 * test/fixtures/perception/make_preprocess_reference.py) on the project's test images (renders and
 * hard cases) and synthetic images, shrinking and enlarging, bilinear and bicubic; the same on the 16
 * What'sUp sample photos as an optional check (they live beside the repository).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadImage } from '../../src/perception/image.js';
import type { DecodeOptions } from '../../src/perception/types.js';
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
  toChw,
  type PreparedImage,
  type PreprocessInput,
  type Resample,
  type Size,
} from '../../src/perception/preprocess.js';
import { resizePilRgb } from '../../src/perception/resize.js';
import { GsrError } from '../../src/util/errors.js';
import { describeShared } from '../helpers/shared.js';
import { FIXTURES } from './paths.js';

interface Case {
  model: string | null;
  width: number;
  height: number;
  filter: Resample;
  /** Absent where Pillow refused the size (`error` says why). */
  sha256?: string;
  crop?: { x: number; y: number; width: number; height: number; rgb_base64: string };
  error?: string;
}
interface ImageRef {
  file: string;
  width: number;
  height: number;
  /** The bytes of Transformers' `load_image` (exif_transpose, convert('RGB')). */
  decoded_sha256: string;
  /**
   * The port's named decoding options that change this image (docs/perception.md): each rule's bytes,
   * and the bytes themselves (zlib, base64) where the port's colour engine is not the rule's.
   */
  options?: Array<{ decode: DecodeOptions; rule: string; sha256: string; rgb_zlib_base64?: string }>;
  cases: Case[];
}
interface Reference {
  pillow: string;
  images: ImageRef[];
  synthetic: Array<{ kind: 'noise' | 'checker' | 'gradient'; width: number; height: number; input_sha256: string; cases: Case[] }>;
}
const ref = JSON.parse(readFileSync(join(FIXTURES, 'preprocess-reference.json'), 'utf8')) as Reference;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const maxDifference = (a: Uint8Array, b: Uint8Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);
/** Bitwise equality of two float arrays (vitest's deep equality takes seconds on millions of values). */
const sameFloats = (a: Float32Array, b: Float32Array) => Buffer.compare(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array(b.buffer, b.byteOffset, b.byteLength)) === 0;

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

const MODELS: Record<string, { rule: (h: number, w: number) => Size; prepare: (i: PreprocessInput) => Promise<PreparedImage> }> = {
  'grounding-dino-tiny': { rule: (h, w) => groundingDinoSize(h, w), prepare: prepareGroundingDino },
  sam: { rule: (h, w) => samSize(h, w), prepare: prepareSam },
  'depth-anything-v2': { rule: (h, w) => dptSize(h, w), prepare: prepareDepthAnything },
};

/** Grey level of tensor value `v` in channel `c` (undoing ImageNet normalisation). */
const grey = (v: number, c: number) => (v * IMAGENET_STD[c]! + IMAGENET_MEAN[c]!) * 255;

/** Resizes and compares with PIL: the crop first (to say where and by how much), then every byte. */
function expectLikePil(src: Uint8Array, sw: number, sh: number, c: Case, what: string): Uint8Array {
  const out = resizePilRgb(src, sw, sh, c.width, c.height, c.filter);
  const crop = Buffer.from(c.crop!.rgb_base64, 'base64');
  let maxDiff = 0;
  for (let y = 0, i = 0; y < c.crop!.height; y++) {
    for (let x = 0; x < c.crop!.width * 3; x++, i++) maxDiff = Math.max(maxDiff, Math.abs(out[((c.crop!.y + y) * c.width + c.crop!.x) * 3 + x]! - crop[i]!));
  }
  expect(maxDiff, `${what}: largest difference in the crop, grey levels`).toBe(0);
  expect(sha(out), `${what}: SHA-256 of the resized bytes`).toBe(c.sha256);
  return out;
}

/** The synthetic inputs of make_preprocess_reference.py. */
function synthetic(kind: 'noise' | 'checker' | 'gradient', w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h * 3);
  let state = 12345;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      if (kind === 'noise') {
        for (let c = 0; c < 3; c++) {
          state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
          out[i + c] = (state >> 16) & 255;
        }
      } else if (kind === 'checker') {
        const v = ((x >> 3) ^ (y >> 3)) & 1 ? 255 : 0;
        out.set([v, 255 - v, (x * 3 + y) & 255], i);
      } else {
        out.set([Math.floor((x * 255) / (w - 1)), Math.floor((y * 255) / (h - 1)), (x + y) & 255], i);
      }
    }
  }
  return out;
}

/** Decodes one reference image and checks it, and every resize of it, against PIL. */
async function expectImageLikePil(path: string, entry: ImageRef): Promise<void> {
  const image = await loadImage(path);
  expect([image.width, image.height]).toEqual([entry.width, entry.height]);
  expect(sha(image.data), 'decoded pixels').toBe(entry.decoded_sha256);
  for (const o of entry.options ?? []) {
    // A named option: its own rule, and not Transformers' bytes.
    const decoded = (await loadImage(path, undefined, o.decode)).data;
    const label = `decoded with ${JSON.stringify(o.decode)} (${o.rule})`;
    if (o.rgb_zlib_base64 === undefined) {
      expect(sha(decoded), label).toBe(o.sha256);
    } else {
      // ICC conversion: libvips' littleCMS and sRGB profile against Pillow's, one level apart at most,
      // while the rule is more than one level away from Transformers' bytes.
      const rule = inflateSync(Buffer.from(o.rgb_zlib_base64, 'base64'));
      expect(sha(rule), 'the stored bytes of the rule').toBe(o.sha256);
      expect(maxDifference(decoded, rule), label).toBeLessThanOrEqual(1);
      expect(maxDifference(image.data, rule)).toBeGreaterThan(1);
    }
    expect(sha(decoded)).not.toBe(entry.decoded_sha256);
  }
  for (const c of entry.cases) {
    const m = c.model ? MODELS[c.model]! : undefined;
    if (c.error !== undefined) {
      // Pillow refuses the size; so does the port, with a one-line error.
      expect(() => resizePilRgb(image.data, image.width, image.height, c.width, c.height, c.filter)).toThrow(GsrError);
      if (m) await expect(m.prepare(image)).rejects.toThrow(GsrError);
      continue;
    }
    const pixels = expectLikePil(image.data, image.width, image.height, c, `${entry.file} -> ${c.width}x${c.height} ${c.filter}`);
    if (!m) continue;
    // The port's pre-processing is exactly this resize, from a file as from decoded pixels.
    expect(m.rule(image.height, image.width)).toEqual([c.height, c.width]);
    for (const input of [path, image]) {
      const p = await m.prepare(input);
      expect(p.resized).toEqual([c.height, c.width]);
      expect(p.original).toEqual([entry.height, entry.width]);
      const padTo: Size | undefined = c.model === 'sam' ? [1024, 1024] : undefined;
      expect(sameFloats(p.data, toChw(pixels, c.width, c.height, { mean: IMAGENET_MEAN, std: IMAGENET_STD, padTo })), `${c.model} tensor`).toBe(true);
    }
  }
}

describe(`PIL's Image.resize, byte for byte (reference: Pillow ${ref.pillow})`, () => {
  it.each(ref.images.map((p) => [p.file, p] as const))('%s: decoded and resized as PIL does', async (file, entry) => {
    await expectImageLikePil(join(FIXTURES, file), entry);
  });

  it.each(ref.synthetic.map((s) => [`${s.kind} ${s.width}x${s.height}`, s] as const))('synthetic %s', (_, s) => {
    const src = synthetic(s.kind, s.width, s.height);
    expect(sha(src), 'the same input as the generator').toBe(s.input_sha256);
    for (const c of s.cases) expectLikePil(src, s.width, s.height, c, `${s.kind} -> ${c.width}x${c.height} ${c.filter}`);
  });

  it('covers shrinking and enlarging with both filters, every model size, and the hard cases', () => {
    const all = [...ref.images.flatMap((p) => p.cases.map((c) => ({ c, w: p.width, h: p.height }))), ...ref.synthetic.flatMap((s) => s.cases.map((c) => ({ c, w: s.width, h: s.height })))];
    for (const filter of ['bilinear', 'bicubic']) {
      expect(all.some(({ c, w, h }) => c.filter === filter && c.width < w && c.height < h)).toBe(true);
      expect(all.some(({ c, w, h }) => c.filter === filter && c.width > w && c.height > h)).toBe(true);
    }
    expect(new Set(all.map(({ c }) => c.model).filter(Boolean))).toEqual(new Set(Object.keys(MODELS)));
    const files = ref.images.map((i) => i.file);
    for (const k of [1, 2, 3, 4, 5, 6, 7, 8]) expect(files).toContain(`images/exif-${k}.jpg`);
    for (const f of ['odd-1x1.png', 'odd-3x517.png', 'render-1127x843.jpg', 'grey-L.png', 'grey-LA.png', 'grey-16bit.png', 'grey-16bit-trns.png', 'grey-LA-16bit.png', 'rgba.png', 'rgb-16bit.png', 'palette.png', 'palette-trns.png', 'icc-wide.jpg', 'icc-p3.png', 'icc-grey.png', 'icc-cmyk.jpg']) {
      expect(files).toContain(`images/${f}`);
    }
    // Every named decoding option is checked against its rule.
    const options = ref.images.flatMap((i) => i.options ?? []).map((o) => JSON.stringify(o.decode));
    expect(new Set(options)).toEqual(new Set([JSON.stringify({ alpha: 'white' }), JSON.stringify({ grey16: 'high-byte' }), JSON.stringify({ icc: 'convert' })]));
    expect(files).toContain('cmyk/cmyk-no-icc.jpg');
  });

  it('rejects sizes that do not fit the data', () => {
    expect(() => resizePilRgb(new Uint8Array(12), 2, 2, 0, 1, 'bilinear')).toThrow(GsrError);
    expect(() => resizePilRgb(new Uint8Array(11), 2, 2, 1, 1, 'bicubic')).toThrow(/11 bytes for a 2x2 RGB image/);
  });

  it('the embedded WebAssembly is the build of wasm/pil-resample.ts', async () => {
    const { compileKernel, generatedModule, KERNELS } = await import('../../wasm/build.js');
    expect(readFileSync(KERNELS.pilResample.generated, 'utf8')).toBe(generatedModule(KERNELS.pilResample, await compileKernel(KERNELS.pilResample)));
  });
});

describeShared("PIL's Image.resize on the What'sUp sample photos", ['whatsupSample'], ({ whatsupSample }) => {
  // Our own figures, made by make_preprocess_reference.py --photos from the photos beside the repository.
  const photos = JSON.parse(readFileSync(join(FIXTURES, 'preprocess-reference.whatsup-sample.json'), 'utf8')) as { photos: ImageRef[] };
  it.each(photos.photos.map((p) => [p.file, p] as const))('%s: decoded and resized as PIL does', async (file, entry) => {
    await expectImageLikePil(join(whatsupSample, 'data', file), entry);
  });
});

describe('SAM padding', () => {
  it('zero-pads (after normalisation) below the resized image', async () => {
    const p = await prepareSam(join(FIXTURES, 'images/render-1127x843.jpg'));
    const [h] = p.resized;
    const plane = 1024 * 1024;
    for (let c = 0; c < 3; c++) {
      expect(p.data[c * plane + h * 1024]).toBe(0);
      expect(p.data[c * plane + 1023 * 1024 + 1023]).toBe(0);
      expect(p.data[c * plane + (h - 1) * 1024]).not.toBe(0);
    }
  });
});

describe('EXIF orientation from a file', () => {
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
    expect(sameFloats(fromFile.data, fromPixels.data)).toBe(true);
    // Top is red, bottom blue (channel 0 = R).
    const [h, w] = fromFile.resized;
    expect(grey(fromFile.data[10 * w + 10]!, 0)).toBeGreaterThan(200);
    expect(grey(fromFile.data[(h - 10) * w + 10]!, 0)).toBeLessThan(60);
  });
});
