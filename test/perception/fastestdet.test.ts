import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COCO_CLASSES, cocoClassesFor } from '../../src/perception/coco-classes.js';
import { loadImage } from '../../src/perception/image.js';
import { decodeFastestDet } from '../../src/perception/models/fastestdet.js';
import { detectors } from '../../src/perception/registry.js';
import type { Detector } from '../../src/perception/types.js';
import { FASTESTDET_ONNX, SAMPLE_ROOT } from './paths.js';

describe('COCO synonym table', () => {
  it('lists the classes in the real model\'s coco.names order', () => {
    const names = readFileSync(join(dirname(FASTESTDET_ONNX), 'coco.names'), 'utf8').split('\n').filter(Boolean);
    expect(COCO_CLASSES).toEqual(names);
  });

  it('maps caption nouns to COCO classes', () => {
    expect(cocoClassesFor('mug')).toEqual([41]);
    expect(cocoClassesFor('The table.')).toEqual([60]);
    expect(cocoClassesFor('armchair')).toEqual([56, 57]);
    expect(cocoClassesFor('dogs')).toEqual([16]);
    expect(cocoClassesFor('teddy bear')).toEqual([77]);
    expect(cocoClassesFor('An umpire')).toEqual([0]);
    expect(cocoClassesFor('scissors')).toEqual([76]);
    expect(cocoClassesFor('plate')).toEqual([]);
  });
});

describe('decodeFastestDet', () => {
  it('decodes one cell into original-image pixels', () => {
    const cells = 22 * 22;
    const raw = new Float32Array(85 * cells);
    const cell = 5 * 22 + 10; // row 5, column 10
    raw[cell] = 0.81; // objectness
    raw[cells + cell] = Math.atanh(0.5); // x offset -> +0.5 cell
    raw[2 * cells + cell] = 0; // y offset 0
    raw[3 * cells + cell] = 0; // width sigmoid(0) = 0.5
    raw[4 * cells + cell] = Math.log(0.25 / 0.75); // height 0.25
    raw[(5 + 41) * cells + cell] = 0.0625; // cup
    const [d, ...rest] = decodeFastestDet(raw, [41], 440, 220, 0.2);
    expect(rest).toEqual([]);
    expect(d!.label).toBe('cup');
    expect(d!.score).toBeCloseTo(Math.pow(0.81, 0.6) * Math.pow(0.0625, 0.4), 6);
    // cx = 10.5/22 -> 210 px; w = 0.5 * 440; cy = 5/22 * 220 = 50; h = 55, clamped at the top.
    expect(d!.box[0]).toBeCloseTo(100, 3);
    expect(d!.box[2]).toBeCloseTo(320, 3);
    expect(d!.box[1]).toBeCloseTo(22.5, 3);
    expect(d!.box[3]).toBeCloseTo(77.5, 3);
    expect(decodeFastestDet(raw, [41], 440, 220, 0.5)).toEqual([]);
    expect(decodeFastestDet(raw, [16], 440, 220, 0.0)).toEqual([]);
  });
});

describe('fastestdet on the real What\'sUp photos', () => {
  let det: Detector;
  beforeAll(async () => {
    det = await detectors.get('fastestdet')({ modelsDir: 'models', device: 'cpu', files: { model: FASTESTDET_ONNX } });
  });
  afterAll(() => det.dispose());

  const sensible = (box: number[], w: number, h: number, minFrac: number, maxFrac: number) => {
    expect(box[0]).toBeGreaterThanOrEqual(0);
    expect(box[1]).toBeGreaterThanOrEqual(0);
    expect(box[2]).toBeLessThanOrEqual(w);
    expect(box[3]).toBeLessThanOrEqual(h);
    const frac = ((box[2]! - box[0]!) * (box[3]! - box[1]!)) / (w * h);
    expect(frac).toBeGreaterThan(minFrac);
    expect(frac).toBeLessThan(maxFrac);
  };

  it.each([
    ['controlled_clevr/mug_behind_plate.jpeg', 'mug', null],
    ['controlled_clevr/mug_in-front_of_plate.jpeg', 'mug', null],
    ['controlled_clevr/mug_left_of_plate.jpeg', 'mug', 'left'],
    ['controlled_clevr/mug_right_of_plate.jpeg', 'mug', 'right'],
    ['controlled_images/dog_left_of_table.jpeg', 'dog', 'left'],
    ['controlled_images/dog_on_table.jpeg', 'dog', null],
    ['controlled_images/dog_right_of_table.jpeg', 'dog', 'right'],
    ['controlled_images/dog_under_table.jpeg', 'dog', null],
  ])('%s: finds the %s', async (file, phrase, side) => {
    const im = await loadImage(join(SAMPLE_ROOT, file));
    const [best] = await det.detect(im, phrase);
    expect(best, 'no detection').toBeDefined();
    expect(best!.score).toBeGreaterThan(0.5);
    sensible(best!.box, im.width, im.height, 0.01, 0.4);
    const cx = (best!.box[0] + best!.box[2]) / 2;
    if (side === 'left') expect(cx).toBeLessThan(im.width / 2);
    if (side === 'right') expect(cx).toBeGreaterThan(im.width / 2);
  });

  it('finds the mug in front of the plate lower in the frame than the one behind it', async () => {
    const front = (await det.detect(await loadImage(join(SAMPLE_ROOT, 'controlled_clevr/mug_in-front_of_plate.jpeg')), 'mug'))[0]!;
    const behind = (await det.detect(await loadImage(join(SAMPLE_ROOT, 'controlled_clevr/mug_behind_plate.jpeg')), 'mug'))[0]!;
    expect(front.box[3]).toBeGreaterThan(behind.box[3]);
  });

  it('returns nothing for a phrase with no COCO class', async () => {
    const im = await loadImage(join(SAMPLE_ROOT, 'controlled_clevr/mug_left_of_plate.jpeg'));
    expect(await det.detect(im, 'plate')).toEqual([]);
    expect(det.canDetect?.('plate')).toBe(false);
    expect(det.canDetect?.('mug')).toBe(true);
  });
});
