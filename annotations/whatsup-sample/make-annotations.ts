/**
 * Writes annotations.json (COCO, gsr-bench's fields) from the hand-drawn boxes in boxes.json, taking
 * image sizes, item ids and the subject/object phrases from the What'sUp sample's own records. The
 * photos are not in the repository: give their What'sUp-layout data folder (default: the shared
 * folder beside the checkout, ../shared/data/whatsup-sample/data).
 *
 *   npx tsx annotations/whatsup-sample/make-annotations.ts [PHOTOS_DATA_FOLDER]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importWhatsup } from '../../src/datasets/index.js';
import { writeCocoFile, type CocoAnnotation, type CocoImage } from '../../src/formats/coco.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const boxes = JSON.parse(readFileSync(join(here, 'boxes.json'), 'utf8')).items as Record<string, Partial<Record<'subject' | 'object', number[]>>>;
const { items } = await importWhatsup(process.argv[2] ?? join(here, '..', '..', '..', 'shared', 'data', 'whatsup-sample', 'data'));
const images: CocoImage[] = [];
const annotations: CocoAnnotation[] = [];
for (const [i, item] of items.entries()) {
  const b = boxes[item.id];
  if (!b) throw new Error(`boxes.json has no boxes for ${item.id}`);
  images.push({ id: i + 1, item_id: item.id, file_name: item.image, width: item.width!, height: item.height!, split: item.split });
  for (const role of ['subject', 'object'] as const) {
    const phrase = role === 'subject' ? item.subject : item.object;
    if (phrase === null) continue;
    const box = b[role];
    if (!box) throw new Error(`boxes.json has no ${role} box for ${item.id}`);
    const [x1, y1, x2, y2] = box;
    if (!(x1 >= 0 && y1 >= 0 && x2 <= item.width! && y2 <= item.height! && x2 > x1 && y2 > y1)) throw new Error(`${item.id} ${role}: box ${box} is outside the ${item.width}x${item.height} image`);
    annotations.push({ id: annotations.length + 1, image_id: i + 1, category_id: 1, bbox: [x1, y1, x2 - x1, y2 - y1], area: (x2 - x1) * (y2 - y1), iscrowd: 0, role, phrase, score: 1 });
  }
}
await writeCocoFile(join(here, 'annotations.json'), {
  info: { tool: 'hand-drawn (annotations/whatsup-sample/README.md)', version: '1', date_created: '2026-12-01' },
  images,
  annotations,
  categories: [{ id: 1, name: 'object' }],
});
console.log(`wrote ${join(here, 'annotations.json')}: ${images.length} images, ${annotations.length} boxes`);
