/**
 * Looks up an item's annotated geometry (boxes, depth direction, image size) in a COCO annotation
 * file, for the geometric baseline. Building the index is pure; loading is the caller's job.
 */
import type { CocoAnnotation, CocoFile } from '../../formats/coco.js';
import type { PromptRecord } from '../../formats/prompts.js';
import { xywhToXyxy } from '../../geometry/boxes.js';
import { rleDecode } from '../../geometry/rle.js';
import { contactFromMask, toDistance, type ObjectGeometry, type SceneGeometry } from './geometry-reasoner.js';

export interface ItemAnnotations {
  width: number;
  height: number;
  subject?: CocoAnnotation;
  object?: CocoAnnotation;
  /** Roles the annotator looked for and did not find. */
  missing: Array<'subject' | 'object'>;
}

export type AnnotationIndex = Map<string, ItemAnnotations>;

/** Indexes a COCO file by manifest item id, keeping the best-scoring annotation per role. */
export function indexAnnotations(coco: CocoFile): AnnotationIndex {
  const byImage = new Map<number, ItemAnnotations>();
  const index: AnnotationIndex = new Map();
  for (const image of coco.images) {
    const entry: ItemAnnotations = {
      width: image.width,
      height: image.height,
      missing: (image.missing ?? []).map((m) => m.role),
    };
    byImage.set(image.id, entry);
    index.set(image.item_id, entry);
  }
  for (const ann of coco.annotations) {
    const entry = byImage.get(ann.image_id);
    if (!entry) continue;
    const current = entry[ann.role];
    if (!current || ann.score > current.score) entry[ann.role] = ann;
  }
  return index;
}

function geometryOf(ann: CocoAnnotation, larger: 'farther' | 'nearer' | undefined): ObjectGeometry {
  const direction = larger ?? (ann.depth?.unit === 'relative-inverse' ? 'nearer' : 'farther');
  return {
    box: xywhToXyxy(ann.bbox),
    distance: ann.depth ? toDistance(ann.depth.median, direction) : undefined,
  };
}

/**
 * A DAP prompt's view of a scene: the depths its hint states replace the annotation's, so the
 * answer follows the hint the prompt gives (whatever annotation file made it). Other prompts: as is.
 */
export function withHintDepth(scene: SceneGeometry, prompt: Pick<PromptRecord, 'hint_depth'>): SceneGeometry {
  const d = prompt.hint_depth;
  if (!d || !scene.object) return scene;
  return {
    ...scene,
    subject: { ...scene.subject, distance: toDistance(d.subject, d.larger) },
    object: { ...scene.object, distance: toDistance(d.object, d.larger) },
  };
}

/**
 * The scene geometry of one item, or a reason it cannot be judged (no subject box, or a two-object
 * item whose object was not found). `larger` is the annotation file's stated depth direction. The
 * object's mask, when there is one, gives the contact measures.
 */
export function sceneOf(entry: ItemAnnotations, larger: 'farther' | 'nearer' | undefined): SceneGeometry | string {
  if (!entry.subject) return 'no subject box in the annotations';
  if (!entry.object && entry.missing.includes('object')) return 'the object was not found by the annotator';
  const scene: SceneGeometry = {
    width: entry.width,
    height: entry.height,
    subject: geometryOf(entry.subject, larger),
    object: entry.object ? geometryOf(entry.object, larger) : null,
  };
  const rle = entry.object?.segmentation;
  if (rle && rle.size[0] === entry.height && rle.size[1] === entry.width) {
    scene.contact = contactFromMask(scene.subject.box, rleDecode(rle), entry.width, entry.height);
  }
  return scene;
}
