/**
 * Annotation files: real COCO JSON with gsr-bench's extra fields (docs/annotate.md). Masks are
 * compressed RLE; `area` is the mask area (box area when there is no mask).
 *
 * The schema is the one declaration of the shape. Fields every consumer relies on are required;
 * fields gsr writes but no reader needs (standard COCO `area`, `iscrowd`, `category_id`, `info`) are
 * optional, so files from other COCO tools read too. Unknown fields pass through untouched.
 */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeAtomicStream } from '../util/fs.js';
import { readJsonFile } from '../util/jsonl.js';

const count = z.number().int().nonnegative();
const xywh = z.tuple([z.number(), z.number(), z.number(), z.number()]);

export const CocoRleSchema = z.object({ size: z.tuple([count, count]), counts: z.string() });
export type CocoRle = z.infer<typeof CocoRleSchema>;

export const DEPTH_UNITS = ['m', 'relative-inverse'] as const;
export type DepthUnit = (typeof DEPTH_UNITS)[number];

/** Depth statistics of one object, inside its mask (or its box when there is no mask). */
export const ObjectDepthSchema = z.object({
  median: z.number(),
  mean: z.number(),
  p10: z.number().optional(),
  p90: z.number().optional(),
  unit: z.enum(DEPTH_UNITS),
  /** `mask` or `box`: the region the statistics were taken over. */
  region: z.enum(['mask', 'box']).optional(),
});
export type ObjectDepth = z.infer<typeof ObjectDepthSchema>;

const RoleSchema = z.enum(['subject', 'object']);

export const CocoImageSchema = z.object({
  id: z.number(),
  /** Manifest item id. */
  item_id: z.string(),
  file_name: z.string(),
  width: z.number().positive(),
  height: z.number().positive(),
  split: z.string().optional(),
  /** Path of the 16-bit depth PNG, relative to the annotation file's folder. */
  depth_file: z.string().optional(),
  /** PNG value * depth_scale = depth in `info.depth.unit` (0 in the PNG = no value). */
  depth_scale: z.number().optional(),
  /** Path of the inspection overlay PNG (`--overlays`), relative to the annotation file's folder. */
  overlay_file: z.string().optional(),
  /** Synthetic scenes: the pinhole camera that rendered the image (pixels, metres, degrees). */
  camera: z.object({ fx: z.number(), fy: z.number(), cx: z.number(), cy: z.number(), height_m: z.number(), pitch_deg: z.number() }).optional(),
  /** Objects that were looked for and not found. */
  missing: z
    .array(
      z.object({
        role: RoleSchema,
        phrase: z.string(),
        reason: z.string(),
        /** Set when a reviewer removed the label (gsr review export). */
        review: z.object({ reviewer: z.string().nullable(), time: z.string().nullable() }).optional(),
      }),
    )
    .optional(),
});
export type CocoImage = z.infer<typeof CocoImageSchema>;

export const CocoAnnotationSchema = z.object({
  id: z.number(),
  image_id: z.number(),
  category_id: z.number().optional(),
  /** [x, y, w, h] in pixels. */
  bbox: xywh,
  area: z.number().optional(),
  segmentation: CocoRleSchema.optional(),
  iscrowd: z.literal(0).optional(),
  role: RoleSchema,
  phrase: z.string(),
  /** Detector confidence (1 for exact synthetic ground truth). */
  score: z.number(),
  mask_score: z.number().optional(),
  depth: ObjectDepthSchema.optional(),
  /** Lower-scoring candidate boxes for the same phrase, xywh with scores. */
  runners_up: z.array(z.object({ bbox: xywh, score: z.number() })).optional(),
  /** Reviewed files (gsr review export): where the label comes from, who decided and when. */
  review: z
    .object({
      source: z.enum(['model', 'human-accepted', 'human-edited', 'human-added']),
      reviewer: z.string().nullable(),
      time: z.string().nullable(),
    })
    .optional(),
  /** Reviewed files: the model's box (xywh) beside the reviewed one; null for labels a person added. */
  model_bbox: xywh.nullable().optional(),
});
export type CocoAnnotation = z.infer<typeof CocoAnnotationSchema>;

export const CocoCategorySchema = z.object({ id: z.number(), name: z.string() });
export type CocoCategory = z.infer<typeof CocoCategorySchema>;

export const AnnotationInfoSchema = z.looseObject({
  tool: z.string().optional(),
  version: z.string().optional(),
  date_created: z.string().optional(),
  /** `exact-synthetic` for rendered ground truth, else `auto`. */
  source: z.enum(['exact-synthetic', 'auto']).optional(),
  models: z
    .array(
      z.object({
        id: z.string(),
        task: z.string(),
        sha256: z.string().nullable(),
        /** The commit the model manifest pins (null: none). */
        revision: z.string().nullable().optional(),
        /** Each file loaded: its sha256, whether that matches the manifest, and the commit the models lock says it came from. */
        files: z
          .array(z.object({ role: z.string(), path: z.string(), sha256: z.string(), matches_manifest: z.boolean().nullable(), revision: z.string().nullable().optional() }))
          .optional(),
        /** Named decoding settings the model ran with (which mode made these annotations). */
        settings: z.record(z.string(), z.string()).optional(),
      }),
    )
    .optional(),
  thresholds: z.record(z.string(), z.number()).optional(),
  device: z.string().optional(),
  /** How to read the depth PNGs: value * scale = depth in `unit`; `larger` says which way is nearer. */
  depth: z
    .object({
      unit: z.enum(DEPTH_UNITS),
      /** Millimetres for metric depth (0.001); 0 when each image has its own `depth_scale`. */
      scale: z.number(),
      larger: z.enum(['farther', 'nearer']),
      /** True for relative depth: read each image's `depth_scale`. */
      scale_per_image: z.boolean().optional(),
    })
    .optional(),
});
export type AnnotationInfo = z.infer<typeof AnnotationInfoSchema>;

export const CocoFileSchema = z.object({
  info: AnnotationInfoSchema.optional(),
  images: z.array(CocoImageSchema),
  annotations: z.array(CocoAnnotationSchema),
  categories: z.array(CocoCategorySchema).optional(),
});
export type CocoFile = z.infer<typeof CocoFileSchema>;

/** Conventional file name of a folder's annotation file. */
export const ANNOTATIONS_FILE = 'annotations.json';

/**
 * Reads and checks a COCO annotation file (written by gsr annotate, gsr dataset synth or another
 * COCO tool); a bad file is a one-line GsrError naming it and the first bad field. The value is
 * returned as read, unknown fields included.
 */
export async function readCocoFile(path: string): Promise<CocoFile> {
  const value = await readJsonFile(path);
  const parsed = CocoFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GsrError(`${path}: not a gsr annotation file (${issue.path.map(String).join('.') || 'root'}: ${issue.message})`);
  }
  return value as CocoFile;
}

/** The parts of an annotation file; images and annotations may be streams (async generators). */
export interface CocoParts {
  info: AnnotationInfo;
  images: Iterable<CocoImage> | AsyncIterable<CocoImage>;
  annotations: Iterable<CocoAnnotation> | AsyncIterable<CocoAnnotation>;
  /** A list, or a function called once the images and annotations are written. */
  categories: CocoCategory[] | (() => CocoCategory[]);
}

/** Writes a COCO annotation file atomically, streamed: one image or annotation a line. */
export function writeCocoFile(path: string, parts: CocoParts): Promise<void> {
  return writeAtomicStream(path, async (write) => {
    await write(`{\n"info": ${JSON.stringify(parts.info, null, 2)},\n"images": [`);
    let n = 0;
    for await (const image of parts.images) await write(`${n++ > 0 ? ',' : ''}\n${JSON.stringify(image)}`);
    await write('\n],\n"annotations": [');
    n = 0;
    for await (const ann of parts.annotations) await write(`${n++ > 0 ? ',' : ''}\n${JSON.stringify(ann)}`);
    const categories = typeof parts.categories === 'function' ? parts.categories() : parts.categories;
    await write(`\n],\n"categories": ${JSON.stringify(categories)}\n}\n`);
  });
}
