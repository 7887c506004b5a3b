/**
 * Turns What'sUp records into manifest items (pure, no I/O). File formats: docs/reference.md, "What'sUp files".
 * Controlled files hold `{image_path, caption_options}` with the correct caption first; QA files
 * hold `[image_id, correct, wrong]`.
 */
import { parseCaption } from './caption.js';
import type { ManifestItem, Relation } from '../formats/manifest.js';
import { normaliseRelativePath } from '../formats/image-paths.js';

export type WhatsupFileKind = 'controlled' | 'qa';

export interface WhatsupFileSpec {
  file: string;
  split: string;
  kind: WhatsupFileKind;
  /** QA files: image path (relative to the data folder) of an image id. */
  imagePath?: (id: string) => string;
  /**
   * Relations the split's records hold, as the official loader labels them (`loaderRelation`, with
   * GQA two-object's fall-through label "top" read as "above"); others are reported as warnings.
   */
  relations: readonly Relation[];
}

/** The six official files, in the order the splits are reported. */
export const WHATSUP_FILES: readonly WhatsupFileSpec[] = [
  { file: 'controlled_images_dataset.json', split: 'whatsup-a', kind: 'controlled', relations: ['on', 'under', 'left', 'right'] },
  { file: 'controlled_clevr_dataset.json', split: 'whatsup-b', kind: 'controlled', relations: ['front', 'behind', 'left', 'right'] },
  { file: 'coco_qa_one_obj.json', split: 'coco-one', kind: 'qa', imagePath: (id) => `val2017/${id.padStart(12, '0')}.jpg`, relations: ['left', 'right', 'top', 'bottom'] },
  { file: 'coco_qa_two_obj.json', split: 'coco-two', kind: 'qa', imagePath: (id) => `val2017/${id.padStart(12, '0')}.jpg`, relations: ['left', 'right', 'above', 'below'] },
  { file: 'vg_qa_one_obj.json', split: 'gqa-one', kind: 'qa', imagePath: (id) => `vg_images/${id}.jpg`, relations: ['left', 'right', 'top', 'bottom', 'behind'] },
  { file: 'vg_qa_two_obj.json', split: 'gqa-two', kind: 'qa', imagePath: (id) => `vg_images/${id}.jpg`, relations: ['left', 'right', 'front', 'behind', 'above'] },
];

/**
 * The relation label What'sUp's own loader gives a record (docs/datasets.md, "Relations"): controlled
 * splits from the file name, QA splits from the correct caption, each with a fall-through label.
 * Returns the loader's word ("top" for GQA two-object's fall-through, where captions say "above").
 */
export function loaderRelation(split: string, fileStem: string, correctCaption: string): string {
  const caption = correctCaption.trim().toLowerCase().replace(/[.!?]+$/, '');
  const has = (phrase: string) => caption.includes(phrase);
  switch (split) {
    case 'whatsup-a':
      return fileStem.includes('left_of') ? 'left' : fileStem.includes('right_of') ? 'right' : fileStem.includes('_on_') ? 'on' : 'under';
    case 'whatsup-b':
      return fileStem.includes('left_of') ? 'left' : fileStem.includes('right_of') ? 'right' : fileStem.includes('_in-front_of_') ? 'front' : 'behind';
    case 'coco-one':
    case 'gqa-one':
      return caption.split(/\s+/).pop() ?? '';
    case 'coco-two':
      return has('left of') ? 'left' : has('right of') ? 'right' : has('above') ? 'above' : 'below';
    case 'gqa-two':
      return has('left of') ? 'left' : has('right of') ? 'right' : has('front of') ? 'front' : has('behind') ? 'behind' : 'top';
    default:
      throw new RangeError(`no official loader rule for split "${split}"`);
  }
}

/** The loader's label in this project's relation names (GQA two-object "top" is the captions' "above"). */
export function loaderRelationName(split: string, label: string): string {
  return split === 'gqa-two' && label === 'top' ? 'above' : label;
}

/** A record turned into an item whose `image` is still relative to the data folder. */
export interface ConvertedRecord {
  /** Id stem before the split prefix and any repeat suffix (file stem or image id). */
  stem: string;
  item: Omit<ManifestItem, 'id' | 'root'>;
  warnings: string[];
}

/** Thrown-free result: a converted record or the reason it was refused. */
export type RecordResult = { ok: true; value: ConvertedRecord } | { ok: false; reason: string };

const fail = (reason: string): RecordResult => ({ ok: false, reason });

/**
 * Official controlled image paths start with `data/` because the official loader runs from the
 * folder that holds `data/`; relative to the data folder itself that prefix is dropped.
 */
export function controlledImageInDataFolder(imagePath: string): string | null {
  const norm = normaliseRelativePath(imagePath);
  if (norm === null) return null;
  return norm.startsWith('data/') ? norm.slice('data/'.length) : norm;
}

// Relation tokens of controlled file names: mug_in-front_of_plate, dog_left_of_table.
const FILE_RELATIONS: ReadonlyArray<[RegExp, Relation]> = [
  [/_in-front_of_/, 'front'],
  [/_left_of_/, 'left'],
  [/_right_of_/, 'right'],
  [/_behind_/, 'behind'],
  [/_under_/, 'under'],
  [/_on_/, 'on'],
];

function relationFromFileName(stem: string): Relation | null {
  for (const [re, relation] of FILE_RELATIONS) if (re.test(stem)) return relation;
  return null;
}

function nonEmptyStrings(values: unknown[]): values is string[] {
  return values.every((v) => typeof v === 'string' && v.trim() !== '');
}

function fromCaptions(spec: WhatsupFileSpec, image: string, options: string[], stem: string): RecordResult {
  const parsed = parseCaption(options[0]);
  if (parsed === null) return fail(`cannot parse the correct caption "${options[0]}"`);
  const warnings: string[] = [];
  if (!spec.relations.includes(parsed.relation)) {
    warnings.push(`relation "${parsed.relation}" is not one of ${spec.split}'s (${spec.relations.join(', ')})`);
  }
  const official = loaderRelationName(spec.split, loaderRelation(spec.split, stem, options[0]));
  if (spec.kind === 'qa' && official !== parsed.relation) {
    warnings.push(`the official loader would label this "${official}", the caption reads "${parsed.relation}"`);
  }
  const item = { split: spec.split, image, subject: parsed.subject, object: parsed.object, relation: parsed.relation, options, answer: 0 };
  return { ok: true, value: { stem, item, warnings } };
}

/** Converts one controlled record (Subsets A and B). */
export function convertControlledRecord(spec: WhatsupFileSpec, record: unknown): RecordResult {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return fail('record is not an object');
  const { image_path: imagePath, caption_options: options } = record as Record<string, unknown>;
  if (typeof imagePath !== 'string' || imagePath.trim() === '') return fail('record has no image_path');
  if (!Array.isArray(options) || options.length === 0) return fail('record has no caption_options');
  if (options.length < 2) return fail('record has only one caption option');
  if (!nonEmptyStrings(options)) return fail('caption_options must be non-empty strings');
  const image = controlledImageInDataFolder(imagePath);
  if (image === null) return fail(`image_path "${imagePath}" is absolute or escapes the dataset root`);
  const stem = image.split('/').pop()!.replace(/\.[^.]+$/, '');
  const result = fromCaptions(spec, image, options, stem);
  if (result.ok) {
    const fromName = relationFromFileName(stem);
    if (fromName !== null && fromName !== result.value.item.relation) {
      result.value.warnings.push(`file name says "${fromName}" but the caption says "${result.value.item.relation}"`);
    }
  }
  return result;
}

/** Converts one `[image_id, correct, wrong]` record (COCO-spatial and GQA-spatial). */
export function convertQaRecord(spec: WhatsupFileSpec, record: unknown): RecordResult {
  if (!Array.isArray(record)) return fail('record is not an [image_id, correct, wrong] array');
  if (record.length < 3) return fail(record.length <= 1 ? 'record has no options' : 'record has only one option');
  const [rawId, ...options] = record;
  const id = typeof rawId === 'number' && Number.isInteger(rawId) && rawId >= 0 ? String(rawId) : typeof rawId === 'string' && /^\d+$/.test(rawId) ? rawId : null;
  if (id === null) return fail(`image_id ${JSON.stringify(rawId)} is not a non-negative integer`);
  if (!nonEmptyStrings(options)) return fail('options must be non-empty strings');
  return fromCaptions(spec, spec.imagePath!(id), options, id);
}
