import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManifestItem } from '../../src/formats/manifest.js';
import type { AnnotationInfo, CocoFile } from '../../src/formats/coco.js';

/**
 * A few What'sUp-shaped items as manifest records, named as in the project's What'sUp-layout sample
 * (test/helpers/samples.ts), whose data folder `root` holds their images.
 */
export function sampleItems(root = '/data/whatsup'): ManifestItem[] {
  const four = ['on', 'under', 'left', 'right'] as const;
  const caption = (s: string, r: string, o: string) =>
    r === 'on' ? `A ${s} on a ${o}` : r === 'under' ? `A ${s} under a ${o}` : `A ${s} to the ${r} of a ${o}`;
  const items: ManifestItem[] = four.map((rel, i) => ({
    id: `whatsup-a-mug-${rel}`,
    split: 'whatsup-a',
    image: `controlled_images/mug_${rel === 'left' || rel === 'right' ? `${rel}_of` : rel}_table.jpeg`,
    root,
    subject: 'mug',
    object: 'table',
    relation: rel,
    options: four.map((r) => caption('mug', r, 'table')),
    answer: i,
  }));
  items.push({
    id: 'whatsup-b-mug-behind', split: 'whatsup-b', image: 'controlled_clevr/mug_behind_plate.jpeg', root, subject: 'mug', object: 'plate', relation: 'behind',
    options: ['A mug behind a plate', 'A mug in front of a plate', 'A mug to the left of a plate', 'A mug to the right of a plate'], answer: 0,
  });
  items.push({ id: 'coco-two-2', split: 'coco-two', image: 'val2017/000000000002.jpg', root, subject: 'can', object: 'bench', relation: 'right', options: ['A can to the right of a bench', 'A can to the left of a bench'], answer: 0 });
  items.push({ id: 'coco-one-1', split: 'coco-one', image: 'val2017/000000000001.jpg', root, subject: 'vase', object: null, relation: 'left', options: ['A vase on the left', 'A vase on the right'], answer: 0 });
  return items;
}

export function tempDir(prefix = 'gsr-prompts-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeManifest(dir: string, items: unknown[], extraLines: string[] = []): string {
  const path = join(dir, 'manifest.jsonl');
  writeFileSync(path, [...items.map((i) => JSON.stringify(i)), ...extraLines].join('\n') + '\n');
  return path;
}

/** A COCO file with depth for the two-object items given (subject nearer than object unless `far`). */
export function depthAnnotations(items: ManifestItem[], depthInfo: AnnotationInfo['depth'] | null = { unit: 'm', scale: 0.001, larger: 'farther' }): CocoFile {
  const coco: CocoFile = {
    info: { tool: 'test', version: '0', date_created: '2026-01-01', source: 'auto', ...(depthInfo ? { depth: depthInfo } : {}) },
    images: [],
    annotations: [],
    categories: [{ id: 1, name: 'object' }],
  };
  items.forEach((item, i) => {
    coco.images.push({ id: i + 1, file_name: item.image, width: 640, height: 480, item_id: item.id });
    const roles: Array<['subject' | 'object', string | null, number]> = [['subject', item.subject, 1.25], ['object', item.object, 2.5]];
    for (const [role, phrase, d] of roles) {
      if (phrase === null) continue;
      coco.annotations.push({
        id: coco.annotations.length + 1, image_id: i + 1, category_id: 1, bbox: [10, 10, 50, 50], area: 2500, iscrowd: 0, role, phrase, score: 0.9,
        depth: { median: d, mean: d + 0.05, p10: d - 0.2, p90: d + 0.2, unit: depthInfo?.unit ?? 'm', region: 'mask' },
      });
    }
  });
  return coco;
}
