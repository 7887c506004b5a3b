/**
 * The ONNX ports end to end on generated fixture models (test/helpers/onnx-fixtures.ts) whose
 * outputs are known functions of their inputs, so every expected value here is exact.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { IMAGENET_MEAN, IMAGENET_STD } from '../../src/perception/preprocess.js';
import { depthEstimators, detectors, segmenters } from '../../src/perception/registry.js';
import type { ModelLoadOptions, RgbImage } from '../../src/perception/types.js';
import { GsrError } from '../../src/util/errors.js';
import {
  writeDepthFixture,
  writeGroundingDinoFixture,
  writeSamDecoderFixture,
  writeSamEncoderFixture,
} from '../helpers/onnx-fixtures.js';
import { FIXTURES } from './paths.js';

const modelsDir = join(mkdtempSync(join(tmpdir(), 'gsr-ports-')), 'models');
const opts = (extra: Partial<ModelLoadOptions> = {}): ModelLoadOptions => ({ modelsDir, device: 'cpu', ...extra });

/** Fixture tokenizer vocabulary ids (test/fixtures/perception/bert-uncased-tiny). */
const ID = { sep: 3, dot: 5, mug: 9, table: 11, dog: 12, arm: 14, chair: 15 };

beforeAll(() => {
  const dino = join(modelsDir, 'grounding-dino-tiny');
  writeGroundingDinoFixture(join(dino, 'model.onnx'), [
    { tokenId: ID.mug, logit: 2, box: [0.5, 0.5, 0.2, 0.4] },
    { tokenId: ID.mug, logit: 0, box: [0.25, 0.25, 0.1, 0.1] },
    { tokenId: ID.mug, logit: -1, box: [0.7, 0.7, 0.1, 0.1] },
    { tokenId: ID.table, logit: 3, box: [0.5, 0.8, 1.0, 0.4] },
    { tokenId: ID.chair, logit: 1, box: [0.1, 0.5, 0.2, 0.2] },
    { tokenId: ID.sep, logit: 5, box: [0.9, 0.9, 0.1, 0.1] },
    { tokenId: ID.dot, logit: 5, box: [0.9, 0.1, 0.1, 0.1] },
    { tokenId: ID.dog, logit: 4, box: [0.0, 0.5, 0.2, 0.2] },
  ]);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(FIXTURES, 'bert-uncased-tiny', f), join(dino, f));
  const sam = join(modelsDir, 'slimsam-77-uniform');
  writeSamEncoderFixture(join(sam, 'vision_encoder.onnx'));
  writeSamDecoderFixture(join(sam, 'prompt_encoder_mask_decoder.onnx'));
  writeDepthFixture(join(modelsDir, 'depth-anything-v2-small', 'model.onnx'));
  writeDepthFixture(join(modelsDir, 'depth-anything-v2-metric-indoor-small', 'model.onnx'), { scale: 2, offset: 3 });
});

function solid(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(colour(x, y), (y * width + x) * 3);
  return { data, width, height };
}

describe('grounding-dino-tiny port', () => {
  const image = solid(400, 300, () => [120, 80, 40]);

  it('decodes as the reference by default: max over all valid tokens, labels from the text threshold, no clamping', async () => {
    const det = await detectors.get('grounding-dino-tiny')(opts());
    try {
      expect(det.provenance?.settings).toEqual({ score_tokens: 'all', clamp: 'none' });
      const mugs = await det.detect(image, 'Mug');
      expect(mugs.map((d) => d.label)).toEqual(['mug', 'mug', 'mug', 'mug']);
      // [SEP] and "." fire on queries 5 and 6 (sigmoid 5): they count, as in the reference.
      expect(mugs.map((d) => d.score)).toEqual([1 / (1 + Math.exp(-5)), 1 / (1 + Math.exp(-5)), 1 / (1 + Math.exp(-2)), 0.5].map((v) => expect.closeTo(v, 6)));
      expect(mugs.map((d) => d.textLabel)).toEqual(['[SEP]', '.', 'mug', 'mug']);
      mugs[0]!.box.forEach((v, i) => expect(v).toBeCloseTo([340, 255, 380, 285][i]!, 3));
      // A box past the image edge is not clamped.
      const dogs = await det.detect(image, 'dog');
      expect(dogs[2]!.textLabel).toBe('dog');
      dogs[2]!.box.forEach((v, i) => expect(v).toBeCloseTo([-40, 120, 40, 180][i]!, 3));
      const plates = await det.detect(image, 'plate');
      expect(plates.map((d) => d.textLabel)).toEqual(['[SEP]', '.']);
    } finally {
      await det.dispose();
    }
  });

  it('keeps the phrase-token rule and clamping as named options', async () => {
    const det = await detectors.get('grounding-dino-tiny')(opts({ params: { score_tokens: 'phrase', clamp: 'image' } }));
    try {
      expect(det.provenance?.settings).toEqual({ score_tokens: 'phrase', clamp: 'image' });
      const mugs = await det.detect(image, 'Mug');
      expect(mugs.map((d) => d.label)).toEqual(['mug', 'mug']);
      expect(mugs[0]!.score).toBeCloseTo(1 / (1 + Math.exp(-2)), 6);
      expect(mugs[1]!.score).toBeCloseTo(0.5, 6);
      mugs[0]!.box.forEach((v, i) => expect(v).toBeCloseTo([160, 90, 240, 210][i]!, 3));
      mugs[1]!.box.forEach((v, i) => expect(v).toBeCloseTo([80, 60, 120, 90][i]!, 3));
      const tables = await det.detect(image, 'table');
      expect(tables).toHaveLength(1);
      tables[0]!.box.forEach((v, i) => expect(v).toBeCloseTo([0, 180, 400, 300][i]!, 3));
      const dogs = await det.detect(image, 'dog');
      dogs[0]!.box.forEach((v, i) => expect(v).toBeCloseTo([0, 120, 40, 180][i]!, 3));
      // Two word pieces: the score is the best of them.
      const chairs = await det.detect(image, 'armchair');
      expect(chairs).toHaveLength(1);
      expect(chairs[0]!.score).toBeCloseTo(1 / (1 + Math.exp(-1)), 6);
      // [SEP] and "." are not the phrase: nothing found.
      expect(await det.detect(image, 'plate')).toEqual([]);
    } finally {
      await det.dispose();
    }
  });

  it('refuses an unknown decoding option', async () => {
    await expect(detectors.get('grounding-dino-tiny')(opts({ params: { score_tokens: 'best' } }))).rejects.toThrow(/score_tokens must be one of all, phrase/);
  });

  it('applies the box threshold parameter', async () => {
    const det = await detectors.get('grounding-dino-tiny')(opts({ params: { box_threshold: 0.6, score_tokens: 'phrase' } }));
    try {
      expect((await det.detect(image, 'mug')).map((d) => d.score)).toHaveLength(1);
    } finally {
      await det.dispose();
    }
  });
});

describe('SAM port', () => {
  // 800x600 -> 1024x768 inside the 1024 canvas: a scale of 1.28 and a crop of the padding.
  const image = solid(800, 600, (x) => [x % 256, 100, 50]);

  it('keeps the best-IoU mask, upsampled, cropped and resized back exactly', async () => {
    const seg = await segmenters.get('slimsam-77-uniform')(opts());
    try {
      await seg.setImage(image);
      // A box taller than the image: the mask is exactly the columns whose centres lie inside.
      const r = await seg.segment([200, -100, 500, 700]);
      expect(r.score).toBeCloseTo(0.9, 6);
      expect(r.mask).toHaveLength(800 * 600);
      let wrong = 0;
      for (let y = 0; y < 600; y++) for (let x = 0; x < 800; x++) if (r.mask[y * 800 + x] !== (x >= 200 && x < 500 ? 1 : 0)) wrong++;
      expect(wrong).toBe(0);
      // A box inside the image: exact except within 2 px of its corners (bilinear at a corner).
      const box: [number, number, number, number] = [100, 150, 300, 400];
      const m = (await seg.segment(box)).mask;
      for (let y = 0; y < 600; y++) {
        for (let x = 0; x < 800; x++) {
          const inside = x >= 100 && x < 300 && y >= 150 && y < 400 ? 1 : 0;
          if (m[y * 800 + x] === inside) continue;
          const nearCorner = [100, 300].some((cx) => Math.abs(x + 0.5 - cx) < 2) && [150, 400].some((cy) => Math.abs(y + 0.5 - cy) < 2);
          expect(nearCorner, `pixel ${x},${y}`).toBe(true);
        }
      }
    } finally {
      await seg.dispose();
    }
  });

  it('follows the predicted IoU when choosing the mask', async () => {
    const dir = join(modelsDir, 'alt-sam');
    const files = { encoder: writeSamEncoderFixture(join(dir, 'enc.onnx')), decoder: writeSamDecoderFixture(join(dir, 'dec.onnx'), { iouScores: [0.95, 0.2, 0.5] }) };
    const seg = await segmenters.get('sam-vit-base')(opts({ files }));
    try {
      await seg.setImage(image);
      const r = await seg.segment([200, -100, 500, 700]);
      expect(r.score).toBeCloseTo(0.95, 6);
      expect(r.mask.every((v) => v === 0)).toBe(true);
    } finally {
      await seg.dispose();
    }
  });

  it('refuses segment() before setImage()', async () => {
    const seg = await segmenters.get('slimsam-77-uniform')(opts());
    try {
      await expect(seg.segment([0, 0, 1, 1])).rejects.toThrow(GsrError);
    } finally {
      await seg.dispose();
    }
  });
});

/** The fixture's depth for a solid colour: scale * mean over channels of the normalised pixel + offset. */
function expectedDepth(rgb: [number, number, number], scale: number, offset: number): number {
  let s = 0;
  for (let c = 0; c < 3; c++) s += (Math.fround(rgb[c]! * Math.fround(1 / 255)) - IMAGENET_MEAN[c]!) / IMAGENET_STD[c]!;
  return (scale * s) / 3 + offset;
}

describe('depth ports', () => {
  const A: [number, number, number] = [250, 10, 10];
  const B: [number, number, number] = [20, 40, 200];
  const image = solid(200, 100, (x) => (x < 100 ? A : B));

  it.each([
    ['depth-anything-v2-small', 1, 0, 'relative-inverse', 'nearer'],
    ['depth-anything-v2-metric-indoor-small', 2, 3, 'm', 'farther'],
  ] as const)('%s resizes back to the original with the manifest semantics', async (id, scale, offset, unit, larger) => {
    const est = await depthEstimators.get(id)(opts());
    try {
      const d = await est.estimate(image);
      expect([d.width, d.height, d.data.length, d.unit, d.larger]).toEqual([200, 100, 20000, unit, larger]);
      const a = expectedDepth(A, scale, offset);
      const b = expectedDepth(B, scale, offset);
      for (let y = 0; y < 100; y++) {
        for (let x = 0; x < 90; x++) expect(d.data[y * 200 + x]).toBeCloseTo(a, 4);
        for (let x = 110; x < 200; x++) expect(d.data[y * 200 + x]).toBeCloseTo(b, 4);
      }
    } finally {
      await est.dispose();
    }
  });
});

describe('contract check at load time', () => {
  it('fails clearly when an input name differs', async () => {
    const bad = writeDepthFixture(join(modelsDir, 'bad', 'model.onnx'), { inputName: 'pixels' });
    const err = await depthEstimators.get('depth-anything-v2-small')(opts({ files: { model: bad } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GsrError);
    expect((err as Error).message).toMatch(/does not match the depth-anything-v2-small model contract: missing input "pixel_values"; unexpected input "pixels"/);
  });
  it('names the missing file', async () => {
    const err = await detectors.get('grounding-dino-tiny')(opts({ modelsDir: '/nonexistent' })).catch((e: unknown) => e);
    // Where it looked (the given folder first) and how to install it (docs/cli.md, "Model search path").
    expect((err as Error).message).toMatch(/^model grounding-dino-tiny is not installed \(no grounding-dino-tiny\/tokenizer\.json\): looked in \/nonexistent\b/);
    expect((err as Error).message).toContain('gsr models pull grounding-dino-tiny');
  });
});
