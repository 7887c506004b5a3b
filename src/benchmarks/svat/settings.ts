/**
 * SVAT's generation settings (`gsr dataset synth svat`, a pipeline's `benchmark.generate`), apart
 * from the generator so the plug-in can name them without loading the image code (generate.ts).
 */
import { z } from 'zod';
import { PAPER_DRAWING } from './episode.js';
import { BACKGROUND_SETS, OBJECT_COUNTS, OBJECT_SETS, TEXT_MODES } from './spec.js';

const list = <T extends z.ZodType>(t: T) => z.array(t).min(1);
export const SvatGenerateSchema = z.strictObject({
  out: z.string().min(1),
  background: list(z.enum(BACKGROUND_SETS)).default(['I1']),
  objects: list(z.enum(OBJECT_SETS)).default(['shape']),
  distractors: list(z.union([z.literal(OBJECT_COUNTS[0]), z.literal(OBJECT_COUNTS[1])])).default([1]),
  text: list(z.enum(TEXT_MODES)).default(['none']),
  shots: z.number().int().min(0).max(32).refine((k) => k % 2 === 0, 'shots must be even (balanced yes/no demonstrations)').default(4),
  /** Items per combination of settings. */
  count: z.number().int().min(1).max(1_000_000).default(100),
  seed: z.number().int().min(0).default(0),
  width: z.number().int().min(16).max(4096).default(512),
  height: z.number().int().min(16).max(4096).default(512),
  /** Folder of I5 photographs (jpg, jpeg, png; searched recursively). */
  photos: z.string().min(1).optional(),
  /** Options for checking labels against pixels (episode.ts DrawOptions); the defaults are the paper's. */
  colours: z.enum(['random', 'palette']).default(PAPER_DRAWING.colours),
  placement: z.enum(['paper', 'boxed']).default(PAPER_DRAWING.placement),
  /** Algorithm 1 as written (label-side), or the reading where only the target obeys the boundary (anywhere). */
  distractor_placement: z.enum(['label-side', 'anywhere']).default(PAPER_DRAWING.distractor_placement),
}).refine((s) => s.width <= 2 * s.height && s.height <= 2 * s.width, 'width and height must be within a factor of 2 of each other');
export type SvatGenerateSettings = z.input<typeof SvatGenerateSchema>;
