import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CocoFile } from '../../src/formats/coco.js';
import { decodeDepthPng } from '../../src/formats/depth-png.js';
import { parseCaption, renderSyntheticScene, synthesizeDataset } from '../../src/datasets/index.js';
import { readManifestAll, resolveItemImage, type ManifestItem } from '../../src/formats/index.js';
import { floorPointAt, makeCamera, project } from '../../src/datasets/synth/camera.js';
import { rleDecode } from '../../src/geometry/rle.js';
import { listTree, tempDir } from './fixtures.js';
import { scaled } from '../helpers/cli.js';

const SEED = 11;
const COUNT = 12; // styles cycle every 3 scenes, relations every 12: one scene per style x relation.

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

describe('gsr dataset synth', () => {
  let dirA: string;
  let dirB: string;
  let items: ManifestItem[];
  let coco: CocoFile;

  beforeAll(async () => {
    dirA = await tempDir('gsr-synth-a-');
    dirB = await tempDir('gsr-synth-b-');
    // In-process here (vitest cannot start TypeScript workers); the CLI test compares worker output with this path.
    await synthesizeDataset({ out: dirA, count: COUNT, seed: SEED, workers: 0 });
    await synthesizeDataset({ out: dirB, count: COUNT, seed: SEED, workers: 0 });
    items = await readManifestAll(join(dirA, 'manifest.jsonl'));
    coco = JSON.parse(await readFile(join(dirA, 'annotations.json'), 'utf8')) as CocoFile;
  }, scaled(120_000));

  it('gives byte-identical trees for one seed in two folders, and different ones for another seed', async () => {
    const files = await listTree(dirA);
    expect(files).toEqual(await listTree(dirB));
    expect(files).toHaveLength(2 + 2 * COUNT);
    for (const f of files) expect((await readFile(join(dirA, f))).equals(await readFile(join(dirB, f))), f).toBe(true);
    const dirC = await tempDir('gsr-synth-c-');
    await synthesizeDataset({ out: dirC, count: 3, seed: SEED + 1, workers: 0 });
    expect((await readFile(join(dirC, 'images/synth-00000.jpg'))).equals(await readFile(join(dirA, 'images/synth-00000.jpg')))).toBe(false);
  }, scaled(60_000));

  it('writes no absolute paths or timestamps', async () => {
    for (const f of ['manifest.jsonl', 'annotations.json']) {
      const text = await readFile(join(dirA, f), 'utf8');
      expect(text).not.toContain(dirA);
      expect(text).not.toMatch(/20\d\d-\d\d-\d\dT/);
    }
    expect(coco.info).toMatchObject({ source: 'exact-synthetic', date_created: '', depth: { unit: 'm', scale: 0.001, larger: 'farther' } });
    expect(items.every((i) => i.root === undefined)).toBe(true);
  });

  it('writes manifest items in the importer format, covering every style and relation', async () => {
    expect(items).toHaveLength(COUNT);
    const combos = new Set(items.map((i) => `${i.style}/${i.relation}`));
    expect(combos.size).toBe(12);
    for (const item of items) {
      expect(item.split).toBe('synthetic');
      expect(item.answer).toBe(0);
      expect(item.options).toHaveLength(item.object === null ? 2 : 4);
      expect(new Set(item.options).size).toBe(item.options.length);
      expect(parseCaption(item.options[0])).toEqual({ subject: item.subject, object: item.object, relation: item.relation });
      const meta = await sharp(resolveItemImage(item, join(dirA, 'manifest.jsonl'))).metadata();
      expect([meta.width, meta.height, meta.format]).toEqual([640, 480, 'jpeg']);
    }
    expect(items.filter((i) => i.style === 'one-object').every((i) => i.object === null && ['left', 'right', 'top', 'bottom'].includes(i.relation))).toBe(true);
    expect(items.filter((i) => i.style === 'tabletop').map((i) => i.relation).sort()).toEqual(['behind', 'front', 'left', 'right']);
    expect(items.filter((i) => i.style === 'furniture').map((i) => i.relation).sort()).toEqual(['left', 'on', 'right', 'under']);
  });

  it('has masks that are the visible pixels of each object, with boxes and areas from them', () => {
    expect(coco.images).toHaveLength(COUNT);
    for (const [k, image] of coco.images.entries()) {
      const anns = coco.annotations.filter((a) => a.image_id === image.id);
      expect(anns.map((a) => a.role)).toEqual(items[k].object === null ? ['subject'] : ['subject', 'object']);
      const { rendered } = renderSyntheticScene(SEED, k, 640, 480);
      for (const [e, ann] of anns.entries()) {
        expect(ann.phrase).toBe(e === 0 ? items[k].subject : items[k].object);
        expect(coco.categories!.find((c) => c.id === ann.category_id)?.name).toBe(ann.phrase);
        const mask = rleDecode(ann.segmentation!);
        let area = 0;
        let mismatched = 0;
        let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
        for (let i = 0; i < mask.length; i++) {
          if (mask[i] !== (rendered.label[i] === e + 1 ? 1 : 0)) mismatched++;
          if (!mask[i]) continue;
          area++;
          const x = i % 640;
          const y = (i - x) / 640;
          x0 = Math.min(x0, x);
          x1 = Math.max(x1, x);
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y);
        }
        expect(mismatched, `${image.item_id}/${ann.role}`).toBe(0);
        expect(ann.area).toBe(area);
        expect(area).toBeGreaterThan(200);
        expect(ann.bbox).toEqual([x0, y0, x1 - x0 + 1, y1 - y0 + 1]);
        expect(ann).toMatchObject({ iscrowd: 0, score: 1 });
      }
    }
  });

  it('writes 16-bit millimetre depth maps whose values give the annotated depth statistics', async () => {
    for (const [k, image] of coco.images.entries()) {
      const png = join(dirA, image.depth_file!);
      const meta = await sharp(png).metadata();
      expect([meta.depth, meta.channels, meta.width, meta.height]).toEqual(['ushort', 1, 640, 480]);
      const { data } = await decodeDepthPng(png, 0.001);
      const { rendered } = renderSyntheticScene(SEED, k, 640, 480);
      expect(Math.abs(data[1000] - rendered.depth[1000])).toBeLessThan(0.0006);
      for (const ann of coco.annotations.filter((a) => a.image_id === image.id)) {
        const mask = rleDecode(ann.segmentation!);
        const values: number[] = [];
        for (let i = 0; i < mask.length; i++) if (mask[i]) values.push(data[i]);
        expect(ann.depth!.unit).toBe('m');
        expect(ann.depth!.median).toBeCloseTo(median(values), 3);
        expect(ann.depth!.p10).toBeLessThanOrEqual(ann.depth!.median);
        expect(ann.depth!.p90).toBeGreaterThanOrEqual(ann.depth!.median);
      }
    }
  });

  it('orders depth front/behind as the captions say', () => {
    for (const [k, item] of items.entries()) {
      if (item.relation !== 'front' && item.relation !== 'behind') continue;
      const [sub, obj] = coco.annotations.filter((a) => a.image_id === coco.images[k].id);
      if (item.relation === 'front') expect(sub.depth!.median).toBeLessThan(obj.depth!.median);
      else expect(sub.depth!.median).toBeGreaterThan(obj.depth!.median);
    }
    // And over many more tabletop scenes, straight from the renderer (index 3j+1 is tabletop).
    let checked = 0;
    for (let j = 0; j < 24; j++) {
      const { scene, rendered } = renderSyntheticScene(5, 3 * j + 1, 320, 240);
      if (scene.relation !== 'front' && scene.relation !== 'behind') continue;
      const depthOf = (e: number) => {
        const values: number[] = [];
        for (let i = 0; i < rendered.label.length; i++) if (rendered.label[i] === e) values.push(rendered.depth[i]);
        return median(values);
      };
      const [s, o] = [depthOf(1), depthOf(2)];
      expect(scene.relation === 'front' ? s < o : s > o, `scene ${3 * j + 1} ${scene.relation}: ${s} vs ${o}`).toBe(true);
      checked++;
    }
    expect(checked).toBe(12);
  });

  it('places left/right and one-object scenes where the captions say', () => {
    for (const [k, item] of items.entries()) {
      const anns = coco.annotations.filter((a) => a.image_id === coco.images[k].id);
      const cx = (b: number[]) => b[0] + b[2] / 2;
      const cy = (b: number[]) => b[1] + b[3] / 2;
      const [s, o] = [anns[0].bbox, anns[1]?.bbox];
      if (item.object === null) {
        const ok = { left: cx(s) < 640 * 0.4, right: cx(s) > 640 * 0.6, top: cy(s) < 480 * 0.4, bottom: cy(s) > 480 * 0.6 }[item.relation as 'left'];
        expect(ok, `${item.id} ${item.relation}`).toBe(true);
      } else if (item.relation === 'left') expect(cx(s)).toBeLessThan(cx(o));
      else if (item.relation === 'right') expect(cx(s)).toBeGreaterThan(cx(o));
    }
  });

  it('refuses sizes and counts it cannot render', async () => {
    const out = await tempDir();
    await expect(synthesizeDataset({ out, count: 1, seed: 1, width: 40, height: 30, workers: 0 })).rejects.toThrow(/size must be within 96x72 .. 8192x8192, got 40x30/);
    await expect(synthesizeDataset({ out, count: 1, seed: 1, width: 1024, height: 256, workers: 0 })).rejects.toThrow(/aspect ratio .* must be within 0.75 .. 2/);
    await expect(synthesizeDataset({ out, count: 0, seed: 1, workers: 0 })).rejects.toThrow(/positive integer/);
    // The smallest allowed size still renders every style.
    const small = await synthesizeDataset({ out, count: 3, seed: 1, width: 96, height: 72, workers: 0 });
    expect(small.counts).toEqual({ furniture: 1, tabletop: 1, 'one-object': 1 });
  });

  it('uses the stated pinhole camera: floor points project back to their pixel at their depth', () => {
    const cam = makeCamera(640, 480, 1.2, (20 * Math.PI) / 180);
    expect(cam.fx).toBeCloseTo(320 / Math.tan(Math.PI / 6), 9);
    for (const [px, py] of [
      [10, 470],
      [320, 240],
      [600, 300],
    ]) {
      const p = floorPointAt(cam, px, py)!;
      const back = project(cam, p)!;
      expect(back.x).toBeCloseTo(px + 0.5, 6);
      expect(back.y).toBeCloseTo(py + 0.5, 6);
    }
    // The optical axis meets the floor at height / sin(pitch) along the axis.
    const centre = project(cam, [0, 0, 1.2 / Math.tan(cam.pitch)])!;
    expect(centre.depth).toBeCloseTo(1.2 / Math.sin(cam.pitch), 9);
  });
});
