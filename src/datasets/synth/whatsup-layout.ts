/**
 * `gsr dataset synth whatsup-layout`: a small set of rendered scenes laid out exactly as What'sUp's
 * data folder (docs/datasets.md, "The What'sUp layout"): the six official JSON files under OUT/data
 * and their image folders. It exists so that the importer's per-split rules are exercised on the
 * official layout without third-party photos: file-name relations for Subsets A and B, caption-word
 * relations for COCO- and GQA-spatial (GQA two-object's fall-through "top"), zero-padded COCO ids,
 * a repeated QA image id, and one wrong option with a typo ("tabl`e", as the real Subset A has).
 * The pictures come from the synthetic renderer; every caption is true of its picture. Beside the data
 * folder, OUT/annotations.json holds each named object's exact box (COCO, item ids as the importer
 * gives them): the reference a detector's hit rate is measured against (the pipeline's `photos`).
 */
import { join } from 'node:path';
import { captionFor } from '../caption.js';
import { ANNOTATIONS_FILE, writeCocoFile, type CocoAnnotation, type CocoImage } from '../../formats/coco.js';
import type { Relation } from '../../formats/manifest.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs.js';
import { VERSION } from '../../util/version.js';
import { WHATSUP_FILES } from '../whatsup-records.js';
import type { EntityStats } from './check.js';
import { encodeImage, renderSyntheticScene, type SceneSpec } from './produce.js';
import { SYNTH_CATEGORIES } from './records.js';

/** One planned picture: what it shows, and the file name (relative to the data folder) it gets. */
interface Shot {
  image: string;
  spec: Required<SceneSpec>;
  /** The relation its caption states, when it differs from the rendered one (furniture "on" read as "above"). */
  says?: Relation;
}

const OPPOSITE: Partial<Record<Relation, Relation>> = { left: 'right', right: 'left', top: 'bottom', bottom: 'top', above: 'below', below: 'above', front: 'behind', behind: 'front' };
const FILE_TOKEN: Partial<Record<Relation, string>> = { on: 'on', under: 'under', left: 'left_of', right: 'right_of', front: 'in-front_of', behind: 'behind' };

function controlled(folder: string, subject: string, object: string, style: 'furniture' | 'tabletop', relations: Relation[]): Shot[] {
  return relations.map((relation) => ({ image: `${folder}/${subject}_${FILE_TOKEN[relation]}_${object}.jpeg`, spec: { style, relation, subject, object } }));
}

const coco = (id: number) => `val2017/${String(id).padStart(12, '0')}.jpg`;
const vg = (id: number) => `vg_images/${id}.jpg`;
const one = (image: string, relation: Relation, subject: string): Shot => ({ image, spec: { style: 'one-object', relation, subject, object: null } });
const two = (image: string, style: 'furniture' | 'tabletop', relation: Relation, subject: string, object: string, says?: Relation): Shot => ({ image, spec: { style, relation, subject, object }, says });

/** The pictures of each split, in file order. QA ids are the numbers in the image names. */
const PLAN: Record<string, Shot[]> = {
  'whatsup-a': [...controlled('controlled_images', 'mug', 'table', 'furniture', ['on', 'under', 'left', 'right']), ...controlled('controlled_images', 'ball', 'chair', 'furniture', ['on', 'under', 'left', 'right'])],
  'whatsup-b': controlled('controlled_clevr', 'mug', 'plate', 'tabletop', ['front', 'behind', 'left', 'right']),
  'coco-one': [one(coco(1), 'left', 'vase'), one(coco(3), 'right', 'bottle'), one(coco(5), 'top', 'box'), one(coco(7), 'bottom', 'ball')],
  'coco-two': [two(coco(2), 'furniture', 'right', 'can', 'bench'), two(coco(4), 'furniture', 'left', 'bottle', 'desk'), two(coco(6), 'furniture', 'on', 'vase', 'table', 'above'), two(coco(8), 'furniture', 'under', 'box', 'table', 'below')],
  'gqa-one': [one(vg(1), 'left', 'candle'), one(vg(3), 'right', 'mug'), one(vg(5), 'top', 'can'), one(vg(7), 'bottom', 'bowl')],
  'gqa-two': [two(vg(2), 'tabletop', 'left', 'can', 'bowl'), two(vg(4), 'tabletop', 'right', 'vase', 'book'), two(vg(6), 'tabletop', 'front', 'mug', 'box'), two(vg(8), 'tabletop', 'behind', 'bottle', 'plate'), two(vg(10), 'furniture', 'on', 'book', 'desk', 'above')],
};

export interface WhatsupLayoutOptions {
  /** Random seed of the renderer (same seed, same bytes). */
  seed?: number;
  width?: number;
  height?: number;
}

export interface WhatsupLayoutResult {
  /** The data folder (OUT/data), a valid `--root` for `gsr dataset import whatsup`. */
  dataDir: string;
  /** OUT/annotations.json: the exact box of every object each record names. */
  annotations: string;
  /** Records per split, in the official split order. */
  records: Record<string, number>;
  images: number;
}

/** The QA record of a picture: [image id, correct caption, wrong caption (the opposite relation)]. */
function qaRecord(shot: Shot, subject: string, object: string | null): [number, string, string] {
  const id = Number(/(\d+)\.jpg$/.exec(shot.image)![1]);
  const says = shot.says ?? shot.spec.relation;
  return [id, captionFor(subject, object, says), captionFor(subject, object, OPPOSITE[says]!)];
}

/** Writes OUT/data (the six official JSON files and the rendered images they name) and OUT/annotations.json. */
export async function writeWhatsupLayout(out: string, options: WhatsupLayoutOptions = {}): Promise<WhatsupLayoutResult> {
  const seed = options.seed ?? 0;
  const width = options.width ?? 320;
  const height = options.height ?? 240;
  const dataDir = join(out, 'data');
  const records: Record<string, number> = {};
  const cocoImages: CocoImage[] = [];
  const cocoAnnotations: CocoAnnotation[] = [];
  /** One COCO image per record (item ids as the importer makes them), with the boxes of the objects it names. */
  const reference = (split: string, itemId: string, file: string, names: Array<[string, EntityStats]>) => {
    const imageId = cocoImages.length + 1;
    cocoImages.push({ id: imageId, item_id: itemId, file_name: file, width, height, split });
    for (const [k, [phrase, e]] of names.entries()) {
      const bbox: [number, number, number, number] = [e.x0, e.y0, e.x1 - e.x0 + 1, e.y1 - e.y0 + 1];
      const category_id = SYNTH_CATEGORIES.find((c) => c.name === phrase)!.id;
      cocoAnnotations.push({ id: cocoAnnotations.length + 1, image_id: imageId, category_id, bbox, area: e.pixels, iscrowd: 0, role: k === 0 ? 'subject' : 'object', phrase, score: 1 });
    }
  };
  let index = 0;
  let images = 0;
  for (const spec of WHATSUP_FILES) {
    const rows: unknown[] = [];
    for (const shot of PLAN[spec.split]) {
      const { scene, rendered, entities } = renderSyntheticScene(seed, index++, width, height, shot.spec);
      await writeFileAtomic(join(dataDir, shot.image), await encodeImage(rendered, 'jpg'));
      images++;
      const named: Array<[string, EntityStats]> = [[scene.subject, entities[1]], ...(scene.object === null ? [] : [[scene.object, entities[2]] as [string, EntityStats]])];
      const stem = shot.image.split('/').pop()!.replace(/\.[^.]+$/, '');
      if (spec.kind === 'controlled') {
        const options_ = [...scene.options];
        // The real Subset A has one wrong option with a typo; the importer must take it as it is.
        if (shot.image.endsWith('mug_right_of_table.jpeg')) options_[options_.indexOf('A mug under a table')] = 'A mug under a tabl`e';
        rows.push({ image_path: `data/${shot.image}`, caption_options: options_ });
        reference(spec.split, `${spec.split}/${stem}`, shot.image, named);
        continue;
      }
      const record = qaRecord(shot, scene.subject, scene.object);
      rows.push(record);
      reference(spec.split, `${spec.split}/${record[0]}`, shot.image, named);
      // A second question about the first two-object picture, naming the objects the other way round.
      if (spec.split === 'coco-two' && rows.length === 1) {
        rows.push(qaRecord({ ...shot, says: OPPOSITE[shot.spec.relation] }, scene.object!, scene.subject));
        reference(spec.split, `${spec.split}/${record[0]}-2`, shot.image, [named[1], named[0]]);
      }
    }
    await writeJsonAtomic(join(dataDir, spec.file), rows);
    records[spec.split] = rows.length;
  }
  const annotations = join(out, ANNOTATIONS_FILE);
  const info = { tool: 'gsr-bench', version: VERSION, date_created: '', source: 'exact-synthetic' as const, generator: { layout: 'whatsup', seed, width, height } };
  await writeCocoFile(annotations, { info, images: cocoImages, annotations: cocoAnnotations, categories: [...SYNTH_CATEGORIES] });
  return { dataDir, annotations, records, images };
}
