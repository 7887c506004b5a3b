import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { annotate, type AnnotateOptions } from '../../src/annotate/run.js';
import { targetsFromImages, type AnnotateTarget } from '../../src/annotate/targets.js';
import type { CocoFile } from '../../src/formats/coco.js';
import { rleDecode } from '../../src/geometry/rle.js';
import { decodeDepthPng } from '../../src/formats/depth-png.js';
import { DOUBLE_DEPTH, DOUBLE_DETECTOR, DOUBLE_DETECTOR_THROWS, DOUBLE_SEGMENTER, registerDoubles } from './helpers/doubles.js';
import { writeAwkwardImages, writePng } from './helpers/images.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-annotate-'));
const readCoco = (dir: string) => JSON.parse(readFileSync(join(dir, 'annotations.json'), 'utf8')) as CocoFile;

function options(targets: AnnotateTarget[], outDir: string, extra: Partial<AnnotateOptions> = {}): AnnotateOptions {
  return { targets, outDir, detector: DOUBLE_DETECTOR, segmenter: DOUBLE_SEGMENTER, depth: DOUBLE_DEPTH, modelsDir: '/nonexistent', device: 'cpu', ...extra };
}

beforeAll(() => registerDoubles());

describe('annotate with test-double models', () => {
  it('writes boxes, RLE masks, depth statistics, depth PNGs and provenance', async () => {
    const dir = tmp();
    const img = join(dir, 'scene.png');
    await writePng(img, 100, 50);
    const out = join(dir, 'out');
    const targets = targetsFromImages([img], [
      { role: 'subject', phrase: 'left' },
      { role: 'object', phrase: 'right' },
    ]);
    const summary = await annotate(options(targets, out, { params: { box_threshold: 0.3 } }));
    expect(summary).toMatchObject({ images_total: 1, images_done: 1, images_failed: 0, objects_found: 2, objects_not_found: 0, interrupted: false, device: 'cpu' });

    const coco = readCoco(out);
    expect(coco.images).toEqual([
      { id: 1, file_name: 'scene.png', width: 100, height: 50, item_id: 'scene', depth_file: 'depth/scene.png', depth_scale: 0.001 },
    ]);
    expect(coco.info).toMatchObject({
      tool: 'gsr-bench',
      source: 'auto',
      device: 'cpu',
      thresholds: { box_threshold: 0.5 },
      depth: { unit: 'm', scale: 0.001, larger: 'farther' },
      summary: { images_done: 1 },
      failures: [],
    });
    expect(coco.info!.models).toEqual([
      { id: DOUBLE_DETECTOR, task: 'detection', sha256: 'ab'.repeat(32) },
      { id: DOUBLE_SEGMENTER, task: 'segmentation', sha256: null },
      { id: DOUBLE_DEPTH, task: 'depth', sha256: null },
    ]);
    const [subject, object] = coco.annotations;
    // Box [10, 10, 40, 40] chosen over the lower-scoring runner-up [0, 0, 20, 10].
    expect(subject).toMatchObject({ id: 1, image_id: 1, role: 'subject', phrase: 'left', bbox: [10, 10, 30, 30], score: 0.9, mask_score: 0.77, area: 900, iscrowd: 0 });
    expect(subject.runners_up).toEqual([{ bbox: [0, 0, 20, 10], score: 0.4 }]);
    expect(object).toMatchObject({ role: 'object', phrase: 'right', bbox: [60, 10, 30, 30], area: 900 });
    expect(object.runners_up).toBeUndefined();
    expect(coco.categories).toEqual([
      { id: 1, name: 'left' },
      { id: 2, name: 'right' },
    ]);
    const mask = rleDecode(subject.segmentation!);
    expect(mask[10 * 100 + 10]).toBe(1);
    expect(mask[10 * 100 + 40]).toBe(0);
    expect(mask[9 * 100 + 10]).toBe(0);
    // depth = x / 10 inside the mask: x = 10..39
    expect(subject.depth!.region).toBe('mask');
    expect(subject.depth!.median).toBeCloseTo(2.45, 5);
    expect(subject.depth!.p10).toBeCloseTo(1.29, 5);
    expect(object.depth!.median).toBeCloseTo(7.45, 5);
    const png = await decodeDepthPng(readFileSync(join(out, 'depth/scene.png')), 0.001);
    expect([png.width, png.height]).toEqual([100, 50]);
    expect(png.data[5 * 100 + 37]).toBeCloseTo(3.7, 4);
  });

  it('records phrases with no box, and a shared phrase takes the next distinct box', async () => {
    const dir = tmp();
    const a = join(dir, 'a.png');
    const b = join(dir, 'b.png');
    await writePng(a, 100, 50);
    await writePng(b, 100, 50);
    const targets = [
      ...targetsFromImages([a], [
        { role: 'subject', phrase: 'nothing' },
        { role: 'object', phrase: 'right' },
      ]),
      ...targetsFromImages([b], [
        { role: 'subject', phrase: 'twin' },
        { role: 'object', phrase: 'twin' },
      ]),
    ];
    const out = join(dir, 'out');
    const s = await annotate(options(targets, out, { segmenter: null, depth: null }));
    expect(s).toMatchObject({ images_done: 2, objects_found: 3, objects_not_found: 1 });
    const coco = readCoco(out);
    expect(coco.images[0].missing).toEqual([{ role: 'subject', phrase: 'nothing', reason: 'no box above threshold' }]);
    expect(coco.images[0].depth_file).toBeUndefined();
    const twins = coco.annotations.filter((x) => x.image_id === 2);
    expect(twins.map((t) => [t.role, t.bbox])).toEqual([
      ['subject', [10, 10, 30, 30]],
      ['object', [60, 10, 30, 30]],
    ]);
    // Box-only annotations: area is the box area, no segmentation.
    expect(twins[0].area).toBe(900);
    expect(twins[0].segmentation).toBeUndefined();
  });

  it('decodes awkward images correctly or records them as failures, and goes on', async () => {
    const dir = tmp();
    const awkward = await writeAwkwardImages(dir);
    const targets = targetsFromImages(
      awkward.map((x) => join(dir, x.name)),
      [{ role: 'subject', phrase: 'left' }],
    );
    const out = join(dir, 'out');
    const s = await annotate(options(targets, out, { overlays: true }));
    const bad = awkward.filter((x) => x.expect === null);
    expect(s).toMatchObject({ images_done: awkward.length - bad.length, images_failed: bad.length });
    const coco = readCoco(out);
    for (const x of awkward) {
      const id = x.name.replace(/\.[a-z]+$/, '');
      const img = coco.images.find((i) => i.item_id === id);
      if (x.expect === null) {
        expect(img, x.name).toBeUndefined();
        const f = (coco.info!.failures as Array<{ item_id: string; error: string }>).find((f) => f.item_id === id);
        expect(f?.error, x.name).toMatch(new RegExp(`cannot (decode|read) image ${x.name}`));
      } else {
        expect(img, x.name).toMatchObject(x.expect);
        expect(existsSync(join(out, img!.overlay_file!)), x.name).toBe(true);
      }
    }
    // EXIF orientation applied: the box is placed in the rotated (50x100) frame.
    const rotated = coco.images.find((i) => i.item_id === 'rotated')!;
    expect(coco.annotations.find((a) => a.image_id === rotated.id)!.bbox).toEqual([5, 20, 15, 60]);
    const overlay = await sharp(join(out, rotated.overlay_file!)).metadata();
    expect([overlay.width, overlay.height]).toEqual([100, 100]); // photo and depth heat-map side by side
  });

  it('says which phrase took the box when two nouns get one box; an image under 8 pixels on a side is a failure, with its size', async () => {
    const dir = tmp();
    const a = join(dir, 'a.png');
    const tiny = join(dir, 'tiny.png');
    await writePng(a, 100, 50);
    await writePng(tiny, 1, 1);
    const objects = [{ role: 'subject' as const, phrase: 'left' }, { role: 'object' as const, phrase: 'same-box' }];
    const out = join(dir, 'out');
    const s = await annotate(options(targetsFromImages([a, tiny], objects), out, { segmenter: null, depth: null }));
    expect(s).toMatchObject({ images_done: 1, images_failed: 1 });
    const coco = readCoco(out);
    expect(coco.images[0].missing).toEqual([{ role: 'object', phrase: 'same-box', reason: 'every box found is the subject\'s box ("left"), IoU >= 0.5' }]);
    expect(coco.info!.failures).toEqual([{ item_id: 'tiny', file: tiny, error: 'image tiny.png is 1x1 pixels, too small to annotate (fewer than 8 on a side)' }]);
  });

  it('records a model error on one image as a failure and continues', async () => {
    const dir = tmp();
    const a = join(dir, 'thirteen.png');
    const b = join(dir, 'fine.png');
    await writePng(a, 13, 20);
    await writePng(b, 20, 20);
    const out = join(dir, 'out');
    const s = await annotate(options(targetsFromImages([a, b], [{ role: 'subject', phrase: 'left' }]), out, { detector: DOUBLE_DETECTOR_THROWS }));
    expect(s).toMatchObject({ images_done: 1, images_failed: 1, objects_not_found: 1 });
    expect(readCoco(out).info!.failures).toEqual([{ item_id: 'thirteen', file: a, error: 'model exploded on a 13-pixel-wide image' }]);
  });

  it('resumes without redoing finished images, after an interruption', async () => {
    const dir = tmp();
    const paths: string[] = [];
    for (let i = 0; i < 6; i++) {
      paths.push(join(dir, `img${i}.png`));
      await writePng(paths[i], 40 + i, 30);
    }
    const log = join(dir, 'calls.log');
    writeFileSync(log, '');
    const targets = targetsFromImages(paths, [{ role: 'subject', phrase: 'left' }]);
    const out = join(dir, 'out');
    const controller = new AbortController();
    let ticks = 0;
    const progress = { tick: () => (++ticks === 3 ? controller.abort() : undefined), stop() {} };
    const params = { call_log: log };
    const first = await annotate(options(targets, out, { params, signal: controller.signal, progress, batch: 3, lowMemory: false }));
    // The third image is recorded once its depth PNG is written, while the fourth runs through the
    // models: the run stops with the images in hand recorded, four.
    expect(first).toMatchObject({ interrupted: true, images_processed: 4, images_done: 4 });
    expect(readCoco(out).images).toHaveLength(4); // valid JSON even when interrupted

    const second = await annotate(options(targets, out, { params }));
    expect(second).toMatchObject({ interrupted: false, images_skipped: 4, images_processed: 2, images_done: 6 });
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    expect(calls).toEqual(paths.map((_, i) => `${40 + i}x30 left`)); // each image detected exactly once
    expect(readCoco(out).images.map((i) => i.item_id)).toEqual(paths.map((_, i) => `img${i}`));

    // A third run has nothing to do and does not even load the models; provenance is kept.
    const third = await annotate(options(targets, out, { detector: DOUBLE_DETECTOR, params }));
    expect(third).toMatchObject({ images_skipped: 6, images_processed: 0 });
    expect(readCoco(out).info!.models![0].sha256).toBe('ab'.repeat(32));
  });

  it('retries failed images unless told not to (retryFailed: false)', async () => {
    const dir = tmp();
    const p = join(dir, 'late.png');
    const targets = targetsFromImages([p], [{ role: 'subject', phrase: 'left' }]);
    const out = join(dir, 'out');
    expect(await annotate(options(targets, out))).toMatchObject({ images_failed: 1 });
    await writePng(p, 30, 30);
    expect(await annotate(options(targets, out, { retryFailed: false }))).toMatchObject({ images_failed: 1, images_processed: 0 });
    expect(await annotate(options(targets, out))).toMatchObject({ images_failed: 0, images_done: 1 });
    expect(readCoco(out).info!.failures).toEqual([]);
  });

  it('records every decoding rule in the journal; resumes the journal of an older version, which lacks some, with one notice', async () => {
    const dir = tmp();
    const paths = [join(dir, 'a.png'), join(dir, 'b.png'), join(dir, 'c.png')];
    for (const p of paths) await writePng(p, 30, 20);
    const targets = targetsFromImages(paths, [{ role: 'subject', phrase: 'left' }]);
    const out = join(dir, 'out');
    const journal = join(out, 'journal.jsonl');
    await annotate(options(targets.slice(0, 1), out));
    const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!) as { settings: Record<string, unknown> };
    expect(header.settings.decode).toEqual({ decode_alpha: 'drop', decode_grey16: 'clip', decode_icc: 'ignore' });
    // Older versions recorded no decoding rule, or only those not at their default then.
    const writtenBy = (decode: object | undefined) => {
      const lines = readFileSync(journal, 'utf8').split('\n');
      writeFileSync(journal, [JSON.stringify({ ...header, settings: { ...header.settings, decode } }), ...lines.slice(1)].join('\n'));
    };
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const notices = () => stderr.mock.calls.map(([m]) => String(m)).filter((m) => m.includes('older version'));
    try {
      writtenBy(undefined);
      expect(await annotate(options(targets.slice(0, 2), out))).toMatchObject({ images_skipped: 1, images_done: 2 });
      expect(notices()).toEqual([
        `gsr: ${journal} was started by an older version of gsr-bench, whose decoding of images with alpha, 16-bit grey or an ICC profile may differ from this run's (docs/perception.md, "Decoding"); resuming it\n`,
      ]);
      // A rule the older journal names still holds.
      writtenBy({ decode_alpha: 'white' });
      await expect(annotate(options(targets, out))).rejects.toThrow(/other settings \(decode: .*"decode_alpha":"white".*"decode_alpha":"drop"/);
      expect(await annotate(options(targets, out, { decode: { alpha: 'white' } }))).toMatchObject({ images_skipped: 2, images_done: 3 });
      expect(notices()).toHaveLength(2);
      // A journal that records them all resumes without a notice, and only with the same rules.
      writtenBy({ decode_alpha: 'drop', decode_grey16: 'clip', decode_icc: 'ignore' });
      await expect(annotate(options(targets, out, { decode: { icc: 'convert' } }))).rejects.toThrow(/"decode_icc":"ignore"\} -> \{.*"decode_icc":"convert"\}/);
      expect(await annotate(options(targets, out))).toMatchObject({ images_skipped: 3 });
      expect(notices()).toHaveLength(2);
    } finally {
      stderr.mockRestore();
    }
  });
});
