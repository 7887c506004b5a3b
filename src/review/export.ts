/**
 * The reviewed annotation file: the base COCO file with every reviewed slot's label replaced by its
 * current one, each carrying its provenance, and the model's box kept beside it. Pure.
 */
import type { CocoAnnotation, CocoFile, CocoImage, ObjectDepth } from '../formats/coco.js';
import { xyxyToXywh } from '../geometry/boxes.js';
import { rleArea } from '../geometry/rle.js';
import { provenanceOf, type Provenance, type SlotLabel } from './edits.js';
import type { Slot } from './labels.js';

/** Provenance of one exported annotation (`annotations[].review`, schema in src/formats/coco.ts). */
export type ReviewProvenance = NonNullable<CocoAnnotation['review']>;

export interface ExportInput {
  base: CocoFile;
  slots: readonly Slot[];
  labels: ReadonlyMap<string, SlotLabel>;
  /** Depth statistics of changed labels, recomputed by the caller from the depth maps; absent: dropped. */
  depths?: ReadonlyMap<string, ObjectDepth | null>;
  /** Recorded in info.review. */
  meta: { base_file: string; base_sha256: string; journal: string; exported_at: string };
}

export type ReviewedAnnotation = CocoAnnotation & { review: ReviewProvenance; model_bbox: CocoAnnotation['bbox'] | null };

const MISSING_REASON: Record<string, string> = {
  absent: 'marked absent by the reviewer',
  wrongInstance: 'the model boxed another instance; no box drawn',
  rejected: 'rejected by the reviewer',
};

/** Builds the reviewed COCO file and counts its labels by provenance. */
export function buildReviewedCoco(input: ExportInput): { coco: CocoFile; counts: Record<Provenance | 'removed', number> } {
  const { base, slots, labels } = input;
  const counts: Record<Provenance | 'removed', number> = { model: 0, 'human-accepted': 0, 'human-edited': 0, 'human-added': 0, removed: 0 };
  const bySlot = new Map<string, Slot>();
  const imageRole = (imageId: number, role: string) => `${imageId}/${role}`;
  const slotOfImageRole = new Map<string, Slot>();
  for (const s of slots) {
    bySlot.set(s.key, s);
    slotOfImageRole.set(imageRole(s.image.id, s.role), s);
  }
  // Labels of slots are rebuilt below; annotations outside the manifest's slots pass through.
  const kept = base.annotations.filter((a) => !slotOfImageRole.has(imageRole(a.image_id, a.role)));
  let nextId = base.annotations.reduce((m, a) => Math.max(m, a.id), 0) + 1;
  const categories = [...(base.categories ?? [])];
  const categoryByName = new Map(categories.map((c) => [c.name.toLowerCase(), c.id]));
  const missing = new Map<number, NonNullable<CocoImage['missing']>>();
  const reviewers = new Set<string>();

  const out: CocoAnnotation[] = [...kept];
  for (const slot of slots) {
    const label = labels.get(slot.key)!;
    if (label.reviewer) reviewers.add(label.reviewer);
    const source = provenanceOf(slot, label);
    if (source === null || label.box === null) {
      const why = label.absent ? MISSING_REASON.absent : label.wrongInstance ? MISSING_REASON.wrongInstance : label.state === 'rejected' ? MISSING_REASON.rejected : 'not found by the detector';
      const entry: NonNullable<CocoImage['missing']>[number] = { role: slot.role, phrase: slot.phrase, reason: why };
      if (label.state !== 'unreviewed') entry.review = { reviewer: label.reviewer, time: label.time };
      (missing.get(slot.image.id) ?? missing.set(slot.image.id, []).get(slot.image.id)!).push(entry);
      if (slot.model) counts.removed++;
      continue;
    }
    counts[source]++;
    const bbox = xyxyToXywh(label.box);
    let categoryId = slot.model?.category_id ?? categoryByName.get(slot.phrase.toLowerCase());
    if (categoryId === undefined) {
      categoryId = categories.reduce((m, c) => Math.max(m, c.id), 0) + 1;
      categories.push({ id: categoryId, name: slot.phrase });
      categoryByName.set(slot.phrase.toLowerCase(), categoryId);
    }
    const ann: ReviewedAnnotation = {
      ...(slot.model ?? {}),
      id: slot.model?.id ?? nextId++,
      image_id: slot.image.id,
      category_id: categoryId,
      bbox,
      area: label.mask ? rleArea(label.mask.rle) : bbox[2] * bbox[3],
      iscrowd: 0,
      role: slot.role,
      phrase: slot.phrase,
      // A person's box has no detector confidence; 1 as for exact truth.
      score: slot.model?.score ?? 1,
      review: { source, reviewer: source === 'model' ? null : label.reviewer, time: source === 'model' ? null : label.time },
      model_bbox: slot.model ? slot.model.bbox : null,
    };
    delete ann.segmentation;
    delete ann.mask_score;
    if (label.mask) {
      ann.segmentation = label.mask.rle;
      ann.mask_score = label.mask.score;
    }
    if (label.boxChanged || (label.mask && label.mask.source !== 'model')) {
      delete ann.depth;
      const depth = input.depths?.get(slot.key);
      if (depth) ann.depth = depth;
    }
    out.push(ann);
  }
  out.sort((a, b) => a.image_id - b.image_id || a.id - b.id);

  const images = base.images.map((image) => {
    const own = (image.missing ?? []).filter((m) => !slotOfImageRole.has(imageRole(image.id, m.role)));
    const added = missing.get(image.id) ?? [];
    const copy = { ...image };
    if (own.length + added.length > 0) copy.missing = [...own, ...added];
    else delete copy.missing;
    return copy;
  });
  const info = { ...base.info, review: { ...input.meta, reviewers: [...reviewers].sort(), counts } };
  return { coco: { ...base, info, images, annotations: out, categories }, counts };
}
