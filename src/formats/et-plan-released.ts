/**
 * released-tasks.jsonl: ET-Plan-Bench's released task files as gsr-bench imports them (docs/et-plan.md,
 * "Released task files"), one task a line: the instruction, the completion criteria as ordered steps of
 * class-level relations, the Unity scene index and the ground-truth plan in engine syntax. The scenes
 * are not public, so these tasks are for LCS scoring of agent logs and template statistics only.
 */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeJsonlAtomic } from '../util/fs.js';
import { readJsonlWithLines } from '../util/jsonl.js';

/** The file the importer writes in its output folder. */
export const RELEASED_TASKS_FILE = 'released-tasks.jsonl';

/** The relations the released criteria use (FACING: 83 spatial-constraint tasks, `(FACING, clock, tv)`). */
export const RELEASED_RELATIONS = ['CLOSE', 'ON', 'INSIDE', 'FACING'] as const;

/** `from REL to` with class names; `character` stands for the agent (the files write `robot`). */
export const ReleasedCriterionSchema = z.object({
  relation: z.enum(RELEASED_RELATIONS),
  from: z.string().min(1),
  to: z.string().min(1),
});
export type ReleasedCriterion = z.infer<typeof ReleasedCriterionSchema>;

export const EtPlanReleasedTaskSchema = z.object({
  /** `<file stem>/<line>`. */
  id: z.string().min(1),
  /** The task family the file holds (src/benchmarks/et-plan/task.ts). */
  family: z.string().min(1),
  /** The file, relative to the imported folder, and the 1-based line (or array index + 1). */
  file: z.string().min(1),
  line: z.number().int().positive(),
  task: z.string().min(1),
  env_id: z.number().int().nonnegative(),
  /** Ordered steps (STEP_1, STEP_2, ...; one step when the file has none). */
  criteria: z.array(z.array(ReleasedCriterionSchema).min(1)).min(1),
  /** Engine syntax: `<char0> ` removed, `[put]` written `[putback]`; ids are the Unity scenes'. */
  ground_truth: z.array(z.string().min(1)).min(1),
});
export type EtPlanReleasedTask = z.infer<typeof EtPlanReleasedTaskSchema>;

/** Reads released-tasks.jsonl; a bad line is an error naming it. */
export async function readEtPlanReleasedTasks(path: string): Promise<EtPlanReleasedTask[]> {
  const out: EtPlanReleasedTask[] = [];
  for await (const { line, value } of readJsonlWithLines(path)) {
    const r = EtPlanReleasedTaskSchema.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new GsrError(`${path}:${line}: not an imported ET-Plan-Bench task: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
    }
    out.push(r.data);
  }
  return out;
}

/** Writes released-tasks.jsonl atomically. */
export function writeEtPlanReleasedTasks(path: string, tasks: Iterable<EtPlanReleasedTask>): Promise<void> {
  return writeJsonlAtomic(path, tasks);
}
