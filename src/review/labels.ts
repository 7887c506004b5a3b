/**
 * The unit of review: one label slot per manifest item and role (the subject, and the object of
 * two-object items), holding the model's label for it or none when the detector never found it. Pure.
 */
import type { CocoAnnotation, CocoFile, CocoImage } from '../formats/coco.js';
import type { ManifestItem } from '../formats/manifest.js';
import { xywhToXyxy, type Box } from '../geometry/boxes.js';
import { GsrError } from '../util/errors.js';

export type Role = 'subject' | 'object';
export const ROLES: readonly Role[] = ['subject', 'object'];

export interface Slot {
  /** `item/role`: stable, URL-safe once encoded. */
  key: string;
  item: string;
  role: Role;
  phrase: string;
  split: string;
  image: CocoImage;
  manifest: ManifestItem;
  /** The model's annotation for this slot (best score), or null when none was found. */
  model: CocoAnnotation | null;
}

export const slotKey = (item: string, role: Role): string => `${item}/${role}`;

/** The model's box of a slot, xyxy pixels; null when the detector found nothing. */
export function modelBox(slot: Slot): Box | null {
  return slot.model ? xywhToXyxy(slot.model.bbox) : null;
}

/**
 * Pairs manifest items with their annotated image and builds the slots in manifest order. Items
 * without an image in the annotation file are skipped (counted in `unannotated`).
 */
export function buildSlots(coco: CocoFile, items: readonly ManifestItem[]): { slots: Slot[]; unannotated: string[] } {
  const images = new Map<string, CocoImage>();
  for (const image of coco.images) images.set(image.item_id, image);
  const best = new Map<string, CocoAnnotation>();
  const imageItem = new Map<number, string>();
  for (const image of coco.images) imageItem.set(image.id, image.item_id);
  for (const ann of coco.annotations) {
    const item = imageItem.get(ann.image_id);
    if (item === undefined) continue;
    const key = slotKey(item, ann.role);
    const current = best.get(key);
    if (!current || ann.score > current.score) best.set(key, ann);
  }
  const slots: Slot[] = [];
  const unannotated: string[] = [];
  const seen = new Set<string>();
  for (const m of items) {
    if (seen.has(m.id)) throw new GsrError(`manifest: duplicate item id ${m.id}`);
    seen.add(m.id);
    const image = images.get(m.id);
    if (!image) {
      unannotated.push(m.id);
      continue;
    }
    for (const role of ROLES) {
      const phrase = role === 'subject' ? m.subject : m.object;
      if (phrase === null) continue;
      const key = slotKey(m.id, role);
      slots.push({ key, item: m.id, role, phrase, split: image.split ?? m.split, image, manifest: m, model: best.get(key) ?? null });
    }
  }
  return { slots, unannotated };
}
