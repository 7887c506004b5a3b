/**
 * photos.json of the pipeline's `photos` stage: a detector's boxes on real photos against reference
 * boxes. The stage writes it; the report reads it.
 */

/** One reference object: the detector's box (or none) against the reference box, xyxy pixels. */
export interface PhotoObject {
  item: string;
  /** Absolute image path. */
  image: string;
  role: 'subject' | 'object';
  phrase: string;
  reference: number[];
  detected: number[] | null;
  iou: number | null;
  hit: boolean;
}

/** The detector's hit rate (IoU >= 0.5) over the reference objects, overall and per role. */
export interface PhotosSummary {
  detector: string;
  note: string | null;
  images: number;
  objects: number;
  hits: number;
  hit_rate: number | null;
  subject: { hits: number; objects: number };
  object: { hits: number; objects: number };
  mean_iou: number | null;
  /** Photos the detector could not annotate (item faults), and the first few with why. */
  failed?: number;
  failures?: Array<{ item_id: string; error: string }>;
}

export const PHOTOS_FILE = 'photos.json';
