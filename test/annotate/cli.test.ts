import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CocoAnnotation, CocoFile } from '../../src/annotate/coco.js';
import { runCli, SHARED, WHATSUP_SAMPLE_ROOT } from '../helpers/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-annotate-cli-'));
const MODELS = join(SHARED, 'models');

describe('gsr annotate (CLI) on the real photos with the real FastestDet', () => {
  let out: string;
  let coco: CocoFile;
  let summary: Record<string, unknown>;

  beforeAll(() => {
    const dir = tmp();
    const manifest = join(dir, 'm.jsonl');
    const imp = runCli(['dataset', 'import', 'whatsup', '--root', WHATSUP_SAMPLE_ROOT, '--out', manifest]);
    expect(imp.status, imp.stderr).toBe(0);
    out = join(dir, 'a');
    const r = runCli(['annotate', '--manifest', manifest, '--detector', 'fastestdet', '--segmenter', 'none', '--depth', 'none', '--models-dir', MODELS, '--device', 'cpu', '--out', out, '--json']);
    expect(r.status, r.stderr).toBe(0);
    summary = JSON.parse(r.stdout);
    coco = JSON.parse(readFileSync(join(out, 'annotations.json'), 'utf8')) as CocoFile;
  }, 120_000);

  it('annotates all 16 photos into valid COCO with provenance', () => {
    expect(summary).toMatchObject({ images_total: 16, images_done: 16, images_failed: 0, device: 'cpu' });
    expect(coco.images).toHaveLength(16);
    expect(new Set(coco.images.map((i) => i.id)).size).toBe(16);
    for (const img of coco.images) expect(img.width * img.height).toBeGreaterThan(100_000);
    const imageIds = new Set(coco.images.map((i) => i.id));
    const categoryIds = new Set(coco.categories.map((c) => c.id));
    for (const a of coco.annotations) {
      expect(imageIds.has(a.image_id)).toBe(true);
      expect(categoryIds.has(a.category_id)).toBe(true);
      expect(a.iscrowd).toBe(0);
      expect(a.area).toBeCloseTo(a.bbox[2] * a.bbox[3], 0);
    }
    expect(coco.info.models).toEqual([
      expect.objectContaining({ id: 'fastestdet', task: 'detection', sha256: '31cb14c017fce347cb4c846ec62fdf00d76bb3beecdf4be21e7116ac67feb880' }),
    ]);
    expect(coco.info.models![0].files![0].matches_manifest).toBe(true);
    expect(coco.info.thresholds).toMatchObject({ score_threshold: 0.2, nms_iou: 0.45 });
    expect(coco.info.device).toBe('cpu');
    // Every object asked for is either annotated or listed as missing.
    const asked = coco.images.reduce((n, i) => n + coco.annotations.filter((a) => a.image_id === i.id).length + (i.missing?.length ?? 0), 0);
    expect(asked).toBe(summary.objects_found as number + (summary.objects_not_found as number));
  });

  const subjectOf = (itemId: string): CocoAnnotation | undefined => {
    const img = coco.images.find((i) => i.item_id === itemId)!;
    return coco.annotations.find((a) => a.image_id === img.id && a.role === 'subject');
  };

  it('finds the mug in the Subset B photos and the dog in the dog photos with sensible boxes', () => {
    const mugs = coco.images.filter((i) => i.item_id.startsWith('whatsup-b/mug'));
    const dogs = coco.images.filter((i) => /^whatsup-a\/dog/.test(i.item_id));
    expect(mugs.length).toBe(4);
    expect(dogs.length).toBe(4);
    for (const img of [...mugs, ...dogs]) {
      const a = subjectOf(img.item_id);
      expect(a, img.item_id).toBeDefined();
      const [x, y, w, h] = a!.bbox;
      // Inside the image, not degenerate, and not the whole frame.
      expect(x).toBeGreaterThanOrEqual(0);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(x + w).toBeLessThanOrEqual(img.width + 1e-6);
      expect(y + h).toBeLessThanOrEqual(img.height + 1e-6);
      expect(w * h).toBeGreaterThan(0.005 * img.width * img.height);
      expect(w * h).toBeLessThan(0.5 * img.width * img.height);
      expect(a!.score).toBeGreaterThan(0.2);
    }
    // Left/right photos: the box centre is on the named side of the table's middle third.
    const left = subjectOf('whatsup-b/mug_left_of_plate')!;
    const right = subjectOf('whatsup-b/mug_right_of_plate')!;
    expect(left.bbox[0] + left.bbox[2] / 2).toBeLessThan(right.bbox[0] + right.bbox[2] / 2);
  });

  it('resumes as a no-op on a second run', () => {
    const r = runCli(['annotate', '--manifest', join(out, '..', 'm.jsonl'), '--detector', 'fastestdet', '--models-dir', MODELS, '--device', 'cpu', '--out', out, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ images_skipped: 16, images_processed: 0, images_done: 16 });
  });
});

describe('gsr annotate (CLI) errors and quality', () => {
  it('fails with one clear line on bad invocations', () => {
    const out = tmp();
    const cases: Array<[string[], RegExp]> = [
      [['annotate', '--out', out], /nothing to annotate/],
      [['annotate', 'x.jpg', '--out', out], /need --objects/],
      [['annotate', 'x.jpg', '--objects', 'a,b,c', '--out', out], /at most one object/],
      [['annotate', 'x.jpg', '--manifest', 'm.jsonl', '--objects', 'a', '--out', out], /either --manifest or image files/],
      [['annotate', 'x.jpg', '--objects', 'a', '--device', 'tpu', '--out', out], /--device must be one of auto, cpu, cuda/],
      [['annotate', 'x.jpg', '--objects', 'a', '--param', 'oops', '--out', out], /--param must be key=value/],
      [['annotate', 'x.jpg', '--objects', 'a', '--detector', 'no-such-model', '--out', out], /unknown detector "no-such-model"/],
      [['annotate', '--manifest', join(out, 'missing.jsonl'), '--out', out], /missing\.jsonl/],
    ];
    for (const [args, message] of cases) {
      const r = runCli(args);
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr.trim().split('\n').filter((l) => l.startsWith('gsr: error:'))).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('scores synthetic truth against itself and a shifted copy', () => {
    const dir = tmp();
    const synth = runCli(['dataset', 'synth', '--out', join(dir, 'syn'), '--count', '6', '--width', '160', '--height', '120']);
    expect(synth.status, synth.stderr).toBe(0);
    const truthPath = join(dir, 'syn', 'annotations.json');
    const same = runCli(['annotate', 'quality', '--pred', truthPath, '--truth', truthPath, '--json']);
    expect(same.status, same.stderr).toBe(0);
    const r = JSON.parse(same.stdout);
    expect(r.recall_at_50).toBe(1);
    expect(r.box_iou.min).toBe(1);
    expect(r.mask_iou.min).toBe(1);
    expect(r.depth_absrel.value).toBe(0);
    expect(r.depth_order.pairs).toBeGreaterThan(0);
    expect(r.depth_order.agreement).toBe(1);

    // Shift every predicted box right by its own width: IoU 0, recall 0.
    const truth = JSON.parse(readFileSync(truthPath, 'utf8')) as CocoFile;
    for (const a of truth.annotations) a.bbox = [a.bbox[0] + a.bbox[2], a.bbox[1], a.bbox[2], a.bbox[3]];
    const shifted = join(dir, 'shifted.json');
    writeFileSync(shifted, JSON.stringify(truth));
    const text = runCli(['annotate', 'quality', '--pred', shifted, '--truth', truthPath]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/recall@0.5: 0.000/);
  });

  it('names the file when an annotation file is not COCO', () => {
    const dir = tmp();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ images: [{ id: 1 }] }));
    const r = runCli(['annotate', 'quality', '--pred', bad, '--truth', bad]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/bad\.json: not a gsr annotation file \(images\.0\.item_id/);
  });
});
