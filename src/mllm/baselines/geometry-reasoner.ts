/**
 * The geometric reasoner: which relation the annotated boxes and depths support, and how strongly.
 * Pure. Every relation gets a signed "evidence" in comparable units (separations measured in object
 * sizes); the answer is the option whose stated relation has the most evidence.
 *
 * - left/right: horizontal offset of the box centres over the mean half-width (> 1: no x-overlap).
 * - on/under/above/below: only as far as one box is over the other (x-overlap share). With the
 *   object's mask, `on` is contact from below (object pixels just under the subject's bottom edge)
 *   and `under` is object pixels above the subject without that contact (a tabletop or seat over it).
 *   From boxes alone, `on` is the part of the subject above the object's top edge (full when they
 *   touch), `under` the part below it; `above` wants a gap, `below` the part under its bottom edge.
 * - front/behind: relative depth difference, in the stated direction, in units of DEPTH_UNIT.
 * - one-object splits (left/right/top/bottom): the subject's centre against the image centre.
 */
import type { Relation } from '../../formats/manifest.js';
import { converseRelation, parseCaptionRelation } from '../../datasets/caption.js';

export type Xyxy = [number, number, number, number];

export interface ObjectGeometry {
  box: Xyxy;
  /** Distance-like depth (larger = farther); absent when the annotation has no depth. */
  distance?: number;
}

export interface SceneGeometry {
  width: number;
  height: number;
  subject: ObjectGeometry;
  /** Null for one-object items. */
  object: ObjectGeometry | null;
  /** Where the object's mask meets the subject (see {@link contactFromMask}); absent without a mask. */
  contact?: Contact;
}

/**
 * How the object's mask meets the subject: `support` is the share of a thin band just under the
 * subject's bottom edge that is object (something it rests on); `cover` the share of the subject's
 * columns with object pixels above its top edge (something over it: a tabletop, a seat).
 */
export interface Contact {
  support: number;
  cover: number;
}

/** Contact measures of a subject box against a row-major 0/1 object mask. */
export function contactFromMask(subject: Xyxy, mask: Uint8Array, width: number, height: number): Contact {
  const x0 = Math.max(0, Math.floor(subject[0]));
  const x1 = Math.min(width, Math.ceil(subject[2]));
  const top = Math.max(0, Math.floor(subject[1]));
  const bottom = Math.min(height, Math.ceil(subject[3]));
  const band = Math.max(2, Math.round(0.2 * (subject[3] - subject[1])));
  let inBand = 0;
  let bandTotal = 0;
  for (let y = bottom; y < Math.min(height, bottom + band); y++) {
    for (let x = x0; x < x1; x++) {
      bandTotal++;
      inBand += mask[y * width + x];
    }
  }
  let covered = 0;
  for (let x = x0; x < x1; x++) {
    for (let y = 0; y < top; y++) {
      if (mask[y * width + x]) {
        covered++;
        break;
      }
    }
  }
  return { support: bandTotal ? inBand / bandTotal : 0, cover: x1 > x0 ? covered / (x1 - x0) : 0 };
}

/** A relative depth difference of this size counts as one unit of evidence (10%). */
export const DEPTH_UNIT = 0.1;
/** Contact tolerance, as a share of the subject's height. */
const CONTACT_TOLERANCE = 0.15;

const centre = (b: Xyxy): [number, number] => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2];
const width = (b: Xyxy): number => Math.max(b[2] - b[0], 1e-9);
const height = (b: Xyxy): number => Math.max(b[3] - b[1], 1e-9);

/** Converts an annotation depth value to distance-like (larger = farther). */
export function toDistance(value: number, larger: 'farther' | 'nearer'): number {
  if (larger === 'farther') return value;
  return 1 / Math.max(value, 1e-9);
}

function twoObjectEvidence(s: ObjectGeometry, o: ObjectGeometry, relation: Relation, contact: Contact | undefined): number {
  const [sx] = centre(s.box);
  const [ox] = centre(o.box);
  const horizontal = (ox - sx) / ((width(s.box) + width(o.box)) / 2); // > 0: subject left of object
  // Vertical relations need one box over the other: the share of the narrower box in x-overlap.
  const xOverlap = Math.min(s.box[2], o.box[2]) - Math.max(s.box[0], o.box[0]);
  const stacked = Math.min(Math.max(xOverlap / Math.min(width(s.box), width(o.box)), 0), 1);
  const share = (v: number) => Math.min(Math.max(v / height(s.box), 0), 1);
  const aboveTop = share(o.box[1] - s.box[1]); // part of the subject above the object's top edge
  const belowTop = share(s.box[3] - o.box[1]); // part of the subject below the object's top edge
  const belowBottom = share(s.box[3] - o.box[3]); // part of the subject below the object's bottom edge
  const gapAboveTop = share(o.box[1] - s.box[3]); // gap between the subject and the object's top
  // Resting: the subject's bottom edge meets the object's top edge (within a tolerance).
  const tol = CONTACT_TOLERANCE * height(s.box);
  const touches = Math.abs(s.box[3] - o.box[1]) <= tol || (s.box[3] > o.box[1] && s.box[3] < (o.box[1] + o.box[3]) / 2);
  // Stacked evidence is doubled so a subject fully over the object beats an x-offset below 1 width.
  switch (relation) {
    case 'left':
      return horizontal;
    case 'right':
      return -horizontal;
    case 'on':
    case 'top':
      if (contact) return 2 * stacked * contact.support;
      return 2 * stacked * aboveTop * (touches ? 1 : 0.5);
    case 'above':
      return 2 * stacked * Math.max(gapAboveTop, touches ? 0 : aboveTop * 0.5);
    case 'under':
    case 'bottom':
      if (contact) return 2 * stacked * contact.cover * (1 - contact.support);
      return 2 * stacked * belowTop;
    case 'below':
      return 2 * stacked * belowBottom;
    case 'front':
    case 'behind': {
      if (s.distance === undefined || o.distance === undefined) return -Infinity;
      const rel = (o.distance - s.distance) / Math.max(Math.min(s.distance, o.distance), 1e-9);
      const nearer = rel / DEPTH_UNIT; // > 0: subject nearer than object
      return relation === 'front' ? nearer : -nearer;
    }
  }
}

function oneObjectEvidence(scene: SceneGeometry, relation: Relation): number {
  const [x, y] = centre(scene.subject.box);
  const horizontal = (scene.width / 2 - x) / (scene.width / 2); // > 0: left half
  const vertical = (scene.height / 2 - y) / (scene.height / 2); // > 0: top half
  switch (relation) {
    case 'left':
      return horizontal;
    case 'right':
      return -horizontal;
    case 'top':
    case 'above':
      return vertical;
    case 'bottom':
    case 'below':
      return -vertical;
    default:
      return -Infinity;
  }
}

/** Evidence that `relation` holds of the scene's subject (with respect to its object, or the image). */
export function relationEvidence(scene: SceneGeometry, relation: Relation): number {
  return scene.object === null ? oneObjectEvidence(scene, relation) : twoObjectEvidence(scene.subject, scene.object, relation, scene.contact);
}

export interface GeometricChoice {
  /** Index into the options, or -1 when no option states a relation this reasoner can judge. */
  index: number;
  evidence: number[];
}

/**
 * Picks the caption the geometry supports best. Captions that state no recognised relation get no
 * evidence; ties go to the earliest option (deterministic).
 */
export function chooseCaption(scene: SceneGeometry, options: string[], subject: string, object: string | null): GeometricChoice {
  const evidence = options.map((caption) => {
    const parsed = parseCaptionRelation(caption, subject, object);
    if (parsed === null) return -Infinity;
    const relation = parsed.swapped ? converseRelation(parsed.relation) : parsed.relation;
    return relationEvidence(scene, relation);
  });
  let index = -1;
  for (let i = 0; i < evidence.length; i++) {
    if (evidence[i] > -Infinity && (index < 0 || evidence[i] > evidence[index])) index = i;
  }
  return { index, evidence };
}
