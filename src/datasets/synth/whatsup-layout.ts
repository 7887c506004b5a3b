/**
 * `gsr dataset synth whatsup-layout`: a small set of rendered scenes laid out exactly as What'sUp's
 * data folder (docs/datasets.md, "The What'sUp layout"): the six official JSON files under OUT/data
 * and their image folders. It exists so that the importer's per-split rules are exercised on the
 * official layout without third-party photos: file-name relations for Subsets A and B, caption-word
 * relations for COCO- and GQA-spatial (GQA two-object's fall-through "top"), zero-padded COCO ids,
 * a repeated QA image id, and one wrong option with a typo ("tabl`e", as the real Subset A has).
 * The pictures come from the synthetic renderer; every caption is true of its picture.
 */
import { join } from 'node:path';
import { captionFor } from '../caption.js';
import type { Relation } from '../../formats/manifest.js';
import { writeFileAtomic, writeJsonAtomic } from '../../util/fs.js';
import { WHATSUP_FILES } from '../whatsup-records.js';
import { encodeImage, renderSyntheticScene, type SceneSpec } from './produce.js';

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

/** Writes OUT/data: the six official JSON files and the rendered images they name. */
export async function writeWhatsupLayout(out: string, options: WhatsupLayoutOptions = {}): Promise<WhatsupLayoutResult> {
  const seed = options.seed ?? 0;
  const width = options.width ?? 320;
  const height = options.height ?? 240;
  const dataDir = join(out, 'data');
  const records: Record<string, number> = {};
  let index = 0;
  let images = 0;
  for (const spec of WHATSUP_FILES) {
    const rows: unknown[] = [];
    for (const shot of PLAN[spec.split]) {
      const { scene, rendered } = renderSyntheticScene(seed, index++, width, height, shot.spec);
      await writeFileAtomic(join(dataDir, shot.image), await encodeImage(rendered, 'jpg'));
      images++;
      if (spec.kind === 'controlled') {
        const options_ = [...scene.options];
        // The real Subset A has one wrong option with a typo; the importer must take it as it is.
        if (shot.image.endsWith('mug_right_of_table.jpeg')) options_[options_.indexOf('A mug under a table')] = 'A mug under a tabl`e';
        rows.push({ image_path: `data/${shot.image}`, caption_options: options_ });
        continue;
      }
      rows.push(qaRecord(shot, scene.subject, scene.object));
      // A second question about the first two-object picture, naming the objects the other way round.
      if (spec.split === 'coco-two' && rows.length === 1) rows.push(qaRecord({ ...shot, says: OPPOSITE[shot.spec.relation] }, scene.object!, scene.subject));
    }
    await writeJsonAtomic(join(dataDir, spec.file), rows);
    records[spec.split] = rows.length;
  }
  return { dataDir, records, images };
}
