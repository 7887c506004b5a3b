/**
 * The FastestDet port: decoding on hand-made outputs; the whole detector on a random-weight network
 * with the real model's contract (test/fixtures/perception/fastestdet/make_fastestdet_tiny.py)
 * against FastestDet's own decoding (make_fastestdet_reference.py); and, as optional checks, the real
 * model (beside the repository) on the What'sUp sample photos against the hand-drawn reference boxes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CocoFile } from '../../src/formats/coco.js';
import { boxIou } from '../../src/geometry/boxes.js';
import { COCO_CLASSES, cocoClassesFor } from '../../src/perception/coco-classes.js';
import { loadImage } from '../../src/perception/image.js';
import { decodeFastestDet } from '../../src/perception/models/fastestdet.js';
import { detectors } from '../../src/perception/registry.js';
import type { Detector } from '../../src/perception/types.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { describeShared, itShared } from '../helpers/shared.js';
import { FASTESTDET_TINY, FIXTURES } from './paths.js';

describe('COCO synonym table', () => {
  it('numbers the 80 classes as FastestDet\'s output channels do (Darknet spelling)', () => {
    expect(COCO_CLASSES).toHaveLength(80);
    expect(new Set(COCO_CLASSES).size).toBe(80);
    expect([COCO_CLASSES[0], COCO_CLASSES[16], COCO_CLASSES[41], COCO_CLASSES[56], COCO_CLASSES[57], COCO_CLASSES[60], COCO_CLASSES[79]]).toEqual([
      'person', 'dog', 'cup', 'chair', 'sofa', 'diningtable', 'toothbrush',
    ]);
  });

  itShared("lists the classes in the real model's coco.names order", ['fastestdet'], ({ fastestdet }) => {
    const names = readFileSync(join(fastestdet, 'coco.names'), 'utf8').split('\n').filter(Boolean);
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

interface DecodingRef {
  score_threshold: number;
  nms_iou: number;
  images: Array<{ file: string; width: number; height: number; phrases: Record<string, { classes: number[]; candidates: number; kept: number; detections_f64_base64: string }> }>;
}

describe("a random-weight FastestDet (the real model's contract) against FastestDet's own decoding", () => {
  const ref = (JSON.parse(readFileSync(join(FIXTURES, 'fastestdet-reference.json'), 'utf8')) as { decoding: DecodingRef }).decoding;
  let det: Detector;
  let boxMax = 0;
  let scoreMax = 0;
  beforeAll(async () => {
    det = await detectors.get('fastestdet')({ modelsDir: 'models', device: 'cpu', threads: 1, files: { model: FASTESTDET_TINY } });
  });
  afterAll(() => det.dispose());

  it('maps each phrase to the classes the reference decoded', () => {
    for (const [phrase, r] of Object.entries(ref.images[0]!.phrases)) expect(cocoClassesFor(phrase), phrase).toEqual(r.classes);
    expect(det.canDetect?.('plate')).toBe(false);
    expect(det.canDetect?.('mug')).toBe(true);
  });

  it.each(ref.images.map((im) => [im.file, im] as const))('%s: same boxes, scores and order for every phrase', async (file, entry) => {
    const image = await loadImage(join(FIXTURES, file));
    expect([image.width, image.height]).toEqual([entry.width, entry.height]);
    for (const [phrase, r] of Object.entries(entry.phrases)) {
      const dets = await det.detect(image, phrase);
      const buf = Buffer.from(r.detections_f64_base64, 'base64');
      const want = new Float64Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
      expect(dets, `${file} "${phrase}"`).toHaveLength(r.kept);
      dets.forEach((d, i) => {
        const w = want.subarray(i * 6, i * 6 + 6);
        d.box.forEach((v, j) => (boxMax = Math.max(boxMax, Math.abs(v - w[j]!))));
        scoreMax = Math.max(scoreMax, Math.abs(d.score - w[4]!));
        expect(d.label).toBe(COCO_CLASSES[w[5]!]);
      });
    }
    // Measured here: 2.3e-13 px and 1.2e-16 (docs/perception.md); the bounds leave room for another
    // CPU's onnxruntime rounding, and still catch a decoding change (int() corners move up to 1 px).
    expect(boxMax).toBeLessThanOrEqual(1e-3);
    expect(scoreMax).toBeLessThanOrEqual(1e-6);
  });

  it('the reference keeps boxes for every phrase with a class, and suppresses overlapping ones', () => {
    for (const [phrase, r] of Object.entries(ref.images[0]!.phrases)) {
      if (r.classes.length === 0) continue;
      const kept = ref.images.reduce((n, im) => n + im.phrases[phrase]!.kept, 0);
      const cands = ref.images.reduce((n, im) => n + im.phrases[phrase]!.candidates, 0);
      expect(kept, phrase).toBeGreaterThan(0);
      expect(kept, phrase).toBeLessThan(cands);
    }
  });
});

describeShared("the real FastestDet on the What'sUp sample photos", ['fastestdet', 'whatsupSample'], ({ fastestdet, whatsupSample }) => {
  const SAMPLE_ROOT = join(whatsupSample, 'data');
  let det: Detector;
  beforeAll(async () => {
    det = await detectors.get('fastestdet')({ modelsDir: 'models', device: 'cpu', files: { model: join(fastestdet, 'FastestDet.onnx') } });
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

  it('finds 20 of the 30 hand-drawn reference boxes at IoU >= 0.5 (annotations/whatsup-sample)', async () => {
    const truth = JSON.parse(readFileSync(join(REPO_ROOT, 'annotations/whatsup-sample/annotations.json'), 'utf8')) as CocoFile;
    const ious: number[] = [];
    for (const image of truth.images) {
      const im = await loadImage(join(SAMPLE_ROOT, image.file_name));
      for (const a of truth.annotations.filter((x) => x.image_id === image.id)) {
        const [best] = await det.detect(im, a.phrase!);
        const [x, y, w, h] = a.bbox;
        ious.push(best ? boxIou(best.box, [x, y, x + w, y + h]) : 0);
      }
    }
    const hits = ious.filter((v) => v >= 0.5);
    expect(ious).toHaveLength(30);
    expect(hits).toHaveLength(20);
    // Measured: mean IoU 0.838 over the 20 it finds (its first box per phrase).
    expect(hits.reduce((a, b) => a + b, 0) / hits.length).toBeCloseTo(0.838, 3);
  }, 120_000);
});

