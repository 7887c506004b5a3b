/** Reading annotation files written by gsr annotate, gsr dataset synth or other COCO tools. */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { readJsonFile } from '../util/jsonl.js';
import type { CocoFile } from './coco.js';

// Only what consumers rely on is checked; extra fields pass through.
const RleSchema = z.object({ size: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]), counts: z.string() });
const DepthSchema = z.object({ median: z.number(), mean: z.number(), unit: z.enum(['m', 'relative-inverse']) }).loose();
const CocoFileSchema = z
  .object({
    info: z.object({}).loose().optional(),
    images: z.array(z.object({ id: z.number(), item_id: z.string(), width: z.number(), height: z.number() }).loose()),
    annotations: z.array(
      z
        .object({
          id: z.number(),
          image_id: z.number(),
          bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
          role: z.enum(['subject', 'object']),
          segmentation: RleSchema.optional(),
          depth: DepthSchema.optional(),
        })
        .loose(),
    ),
    categories: z.array(z.object({}).loose()).optional(),
  })
  .loose();

/** Reads and checks a COCO annotation file; a bad file is a one-line error naming it and the field. */
export async function readCocoFile(path: string): Promise<CocoFile> {
  const value = await readJsonFile(path);
  const parsed = CocoFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GsrError(`${path}: not a gsr annotation file (${issue.path.map(String).join('.') || 'root'}: ${issue.message})`);
  }
  return parsed.data as unknown as CocoFile;
}
