import { z } from 'zod';

/** Spatial relations that captions express (DESIGN.md §3). */
export const RELATIONS = ['on', 'under', 'left', 'right', 'front', 'behind', 'top', 'bottom', 'above', 'below'] as const;
export type Relation = (typeof RELATIONS)[number];

/** Known split names; other names are allowed for user data. */
export const SPLITS = ['whatsup-a', 'whatsup-b', 'coco-one', 'coco-two', 'gqa-one', 'gqa-two', 'synthetic'] as const;

/** One benchmark item: an image, the objects it names, and its caption options. */
export const ManifestItemSchema = z.object({
  /** Stable id, unique within the manifest. */
  id: z.string().min(1),
  split: z.string().min(1),
  /** Image path relative to `root`, with forward slashes. */
  image: z.string().min(1),
  /**
   * Absolute dataset root the image path resolves against. Absent for self-contained datasets
   * (synthetic scenes), whose images resolve against the manifest file's folder.
   */
  root: z.string().min(1).optional(),
  subject: z.string().min(1),
  /** Null for one-object splits. */
  object: z.string().min(1).nullable(),
  relation: z.enum(RELATIONS),
  /** Caption strings in their original order. */
  options: z.array(z.string().min(1)).min(2),
  /** Index into `options` of the correct caption. */
  answer: z.number().int().nonnegative(),
  /** How a synthetic scene was composed (`furniture`, `tabletop`, `one-object`); absent for real data. */
  style: z.string().min(1).optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
});
export type ManifestItem = z.infer<typeof ManifestItemSchema>;
