/**
 * VSP items and their shared context, as `gsr dataset import vsp` writes them (items.jsonl,
 * context.json). Paths are relative to the item's `root` (the VSP copy, read in place).
 */
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';

export const VSP_TASKS = [
  'maze-main', 'maze-t1', 'maze-t2', 'maze-t3', 'maze-t4',
  'blocks-main', 'blocks-t1', 'blocks-t2', 'blocks-t3', 'blocks-t4',
  'collision', 'google-map',
] as const;
export type VspTask = (typeof VSP_TASKS)[number];

/** The ten tasks of the paper (collision and google-map are repository-only). */
export const PAPER_TASKS: readonly VspTask[] = VSP_TASKS.slice(0, 10);
/** Perception sub-tasks and the reasoning sub-task, per game. */
export const PERCEPTION_TASKS: readonly VspTask[] = ['maze-t1', 'maze-t2', 'maze-t3', 'blocks-t1', 'blocks-t2', 'blocks-t3'];
export const REASONING_TASKS: readonly VspTask[] = ['maze-t4', 'blocks-t4'];
export const MAIN_TASKS: readonly VspTask[] = ['maze-main', 'blocks-main'];

const Stacks = z.array(z.array(z.string().regex(/^[BYPORG]$/, 'a colour code B Y P O R G')).min(1));
const Move = z.strictObject({ source: z.string(), target: z.string() });

export const VspItemSchema = z.strictObject({
  id: z.string().min(1),
  benchmark: z.literal('vsp'),
  task: z.enum(VSP_TASKS),
  level: z.string().min(1),
  /** Item number within its level (the data's file number). */
  index: z.number().int().nonnegative(),
  root: z.string().min(1),
  /** The item's images (blocks main: the beginning, then the end state). */
  images: z.array(z.string().min(1)).min(1),
  /** Text renderings of each image, where the data has them (text-only variants). */
  pure_text: z.array(z.string()).optional(),
  table: z.array(z.string()).optional(),
  /** The item's own text: question, candidates, move string or sequence, collision sentence. */
  question: z.string().optional(),
  /** Maze tasks: the map as S/F/H/G rows (rebuilt from the table where the data lacks it). */
  maze: z.array(z.string()).optional(),
  /** Blocks tasks: the stacks shown, bottom to top, left to right. */
  stacks: Stacks.optional(),
  /** Blocks main: the goal stacks. */
  goal: Stacks.optional(),
  /** Task-specific ground truth (see docs/vsp.md). */
  truth: z.strictObject({
    /** maze-t1, maze-t4: Y / N. */
    yn: z.enum(['Y', 'N']).optional(),
    /** maze-t1: the cell asked about (1-based). */
    cell: z.tuple([z.number().int(), z.number().int()]).optional(),
    /** maze-t2: the player relative to the goal. */
    words: z.array(z.string()).optional(),
    /** maze-t3, blocks-t2, blocks-t3: the correct choice 0-3. */
    choice: z.number().int().min(0).max(3).optional(),
    /** maze-t4: the move string. */
    moves: z.string().optional(),
    /** blocks-main: optimal length and the optimal plans listed in info.txt. */
    optimal: z.number().int().nonnegative().optional(),
    plans: z.array(z.array(Move)).optional(),
    /** blocks-t1: the colour name. */
    colour: z.string().optional(),
    /** blocks-t1: stack and level asked about (1-based). */
    at: z.tuple([z.number().int(), z.number().int()]).optional(),
    /** blocks-t2: the two colours asked about (codes). */
    pair: z.tuple([z.string(), z.string()]).optional(),
    /** blocks-t4: the sequence and whether it is executable. */
    sequence: z.array(Move).optional(),
    valid: z.boolean().optional(),
    /** collision: seconds for the car and the person. */
    car: z.number().optional(),
    person: z.number().optional(),
    /** google-map: net blocks north and east. */
    north: z.number().int().optional(),
    east: z.number().int().optional(),
  }),
});
export type VspItem = z.infer<typeof VspItemSchema>;

/** One in-context example: its parts for the image variant and, where the data has them, text variants. */
const ExamplePart = z.union([z.strictObject({ type: z.literal('text'), text: z.string() }), z.strictObject({ type: z.literal('image'), image: z.string() })]);
export const VspExampleSchema = z.strictObject({
  id: z.number().int(),
  image: z.array(ExamplePart),
  pure_text: z.array(ExamplePart).optional(),
  table: z.array(ExamplePart).optional(),
});
export type VspExample = z.infer<typeof VspExampleSchema>;
export type ExamplePart = z.infer<typeof ExamplePart>;

export const VspTaskContextSchema = z.strictObject({
  /** prompt-text/prompt-text.txt as it is. */
  template: z.string(),
  /** <IMAGE-1>, <IMAGE-2>: the prompt-visual-images (relative paths). */
  visuals: z.record(z.string(), z.string()),
  /** Text stand-ins for the visuals in the text-only variants, per variant. */
  visual_texts: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  /** In-context examples per level. */
  examples: z.record(z.string(), z.array(VspExampleSchema)),
});
export type VspTaskContext = z.infer<typeof VspTaskContextSchema>;

export const VspContextSchema = z.strictObject({
  benchmark: z.literal('vsp'),
  root: z.string().min(1),
  tasks: z.record(z.string(), VspTaskContextSchema),
});
export type VspContext = z.infer<typeof VspContextSchema>;

export function parseVspItem(raw: unknown): VspItem {
  const r = VspItemSchema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const id = (raw as { id?: unknown })?.id;
  throw new GsrError(`VSP item ${typeof id === 'string' ? id : '(no id)'}: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
}

export function parseVspContext(raw: unknown, where: string): VspContext {
  const r = VspContextSchema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`${where}: not a VSP context: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
}
