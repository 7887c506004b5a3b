/**
 * `gsr annotate` end to end through the real ports (GroundingDINO, SAM, Depth Anything metric) on
 * generated fixture models whose outputs are known, so boxes, masks and depth are checked exactly.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CocoFile } from '../../src/formats/coco.js';
import { rleDecode } from '../../src/geometry/rle.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';
import { writeDepthFixture, writeGroundingDinoFixture, writeSamDecoderFixture, writeSamEncoderFixture } from '../helpers/onnx-fixtures.js';

// Vocabulary ids in the fixture tokenizer (test/fixtures/perception/bert-uncased-tiny).
const MUG = 9;
const TABLE = 11;
const W = 400;
const H = 300;
const MUG_BOX = [160, 90, 240, 210];
const TABLE_BOX = [0, 180, 400, 300];

/** Depth the metric fixture gives a flat colour: 2 * mean over channels of ImageNet-normalised values + 3. */
function fixtureDepth(v: number): number {
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  return 2 * ((v / 255 - mean[0]) / std[0] + (v / 255 - mean[1]) / std[1] + (v / 255 - mean[2]) / std[2]) / 3 + 3;
}

describe('gsr annotate with fixture GroundingDINO + SAM + metric depth', () => {
  let out: string;
  let coco: CocoFile;
  let stdout: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-annotate-fixtures-'));
    const models = join(dir, 'models');
    const dino = join(models, 'grounding-dino-tiny');
    writeGroundingDinoFixture(join(dino, 'model.onnx'), [
      { tokenId: MUG, logit: 2, box: [0.5, 0.5, 0.2, 0.4] },
      { tokenId: MUG, logit: 0, box: [0.25, 0.25, 0.1, 0.1] },
      { tokenId: TABLE, logit: 3, box: [0.5, 0.8, 1.0, 0.4] },
    ]);
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(REPO_ROOT, 'test/fixtures/perception/bert-uncased-tiny', f), join(dino, f));
    writeSamEncoderFixture(join(models, 'slimsam-77-uniform', 'vision_encoder.onnx'));
    writeSamDecoderFixture(join(models, 'slimsam-77-uniform', 'prompt_encoder_mask_decoder.onnx'));
    writeDepthFixture(join(models, 'depth-anything-v2-metric-indoor-small', 'model.onnx'), { scale: 2, offset: 3 });
    // Grey scene with a white mug-box region: the fixture depth is 3.47 m on grey, 7.88 m on white.
    mkdirSync(join(dir, 'img'));
    const image = join(dir, 'img', 'scene.png');
    const white = await sharp({ create: { width: 80, height: 120, channels: 3, background: { r: 255, g: 255, b: 255 } } }).png().toBuffer();
    await sharp({ create: { width: W, height: H, channels: 3, background: { r: 128, g: 128, b: 128 } } })
      .composite([{ input: white, left: MUG_BOX[0], top: MUG_BOX[1] }])
      .png()
      .toFile(image);
    out = join(dir, 'out');
    const r = runCli([
      'annotate', 'run', image, '--objects', 'mug,table', '--detector', 'grounding-dino-tiny', '--segmenter', 'slimsam-77-uniform',
      '--depth', 'depth-anything-v2-metric-indoor-small', '--models-dir', models, '--device', 'cpu', '--out', out, '--overlays',
    ]);
    expect(r.status, r.stderr).toBe(0);
    stdout = r.stdout;
    coco = JSON.parse(readFileSync(join(out, 'annotations.json'), 'utf8')) as CocoFile;
  }, scaled(180_000));

  it('prints the summary', () => {
    expect(stdout).toMatch(/images: 1 done, 0 failed/);
    expect(stdout).toMatch(/objects: 2 found, 0 not found/);
  });

  it('keeps the top box per phrase with its runners-up, in original pixels', () => {
    const [mug, table] = coco.annotations;
    expect(mug).toMatchObject({ role: 'subject', phrase: 'mug' });
    mug.bbox.forEach((v, i) => expect(v).toBeCloseTo([160, 90, 80, 120][i], 1));
    expect(mug.score).toBeCloseTo(1 / (1 + Math.exp(-2)), 5);
    expect(mug.runners_up).toHaveLength(1);
    mug.runners_up![0].bbox.forEach((v, i) => expect(v).toBeCloseTo([80, 60, 40, 30][i], 1));
    expect(mug.runners_up![0].score).toBeCloseTo(0.5, 5);
    expect(table).toMatchObject({ role: 'object', phrase: 'table' });
    table.bbox.forEach((v, i) => expect(v).toBeCloseTo([0, 180, 400, 120][i], 1));
    expect(coco.info!.thresholds).toMatchObject({ box_threshold: 0.35, text_threshold: 0.25 });
    expect(coco.info!.models!.map((m) => [m.id, m.task, m.sha256?.length])).toEqual([
      ['grounding-dino-tiny', 'detection', 64],
      ['slimsam-77-uniform', 'segmentation', 64],
      ['depth-anything-v2-metric-indoor-small', 'depth', 64],
    ]);
  });

  it('writes SAM masks (the best-IoU mask: the box) as RLE at the original size', () => {
    for (const [ann, box] of [
      [coco.annotations[0], MUG_BOX],
      [coco.annotations[1], TABLE_BOX],
    ] as const) {
      expect(ann.mask_score).toBeCloseTo(0.9, 5);
      expect(ann.segmentation!.size).toEqual([H, W]);
      const mask = rleDecode(ann.segmentation!);
      let inside = 0;
      let outside = 0;
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (mask[y * W + x]) (x >= box[0] && x < box[2] && y >= box[1] && y < box[3] ? inside++ : outside++);
      const boxArea = (box[2] - box[0]) * (box[3] - box[1]);
      expect(ann.area).toBe(inside + outside);
      expect(inside / boxArea).toBeGreaterThan(0.97);
      expect(outside / boxArea).toBeLessThan(0.03);
    }
  });

  it('takes depth statistics inside each mask and writes the 16-bit depth PNG', async () => {
    const [mug, table] = coco.annotations;
    expect(mug.depth).toMatchObject({ unit: 'm', region: 'mask' });
    expect(mug.depth!.median).toBeCloseTo(fixtureDepth(255), 2);
    expect(table.depth!.median).toBeCloseTo(fixtureDepth(128), 2);
    expect(coco.info!.depth).toEqual({ unit: 'm', scale: 0.001, larger: 'farther' });
    const img = coco.images[0];
    expect(img).toMatchObject({ item_id: 'scene', width: W, height: H, depth_file: 'depth/scene.png', depth_scale: 0.001, overlay_file: 'overlays/scene.png' });
    const { data, info } = await sharp(join(out, img.depth_file!)).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([W, H, 1]);
    const mm = new Uint16Array(data.buffer, data.byteOffset, data.length / 2);
    expect(mm[150 * W + 200]).toBe(Math.round(fixtureDepth(255) * 1000)); // inside the white box
    expect(mm[10 * W + 10]).toBe(Math.round(fixtureDepth(128) * 1000));
    const overlay = await sharp(join(out, img.overlay_file!)).metadata();
    expect([overlay.width, overlay.height]).toEqual([2 * W, H]);
  });
});
