/**
 * et-plan agent logs: an external agent's episodes on ET-Plan-Bench's released tasks, one JSON object
 * a line, scored by `gsr score et-plan-logs` (docs/et-plan.md, "Scoring agent logs"). The fields are
 * those the released recorder writes for each task (utils/robot_task.py's saved record: success,
 * action_history, traverse_distance, item_size, init_distance), plus `id`, the released task as
 * `gsr dataset import et-plan` names it (`<file stem>/<line>`), and an optional `model`.
 */
import { z } from 'zod';
import { writeJsonlAtomic } from '../util/fs.js';
import { readJsonlLenient, type SkippedRecord } from '../util/jsonl.js';

export const EtPlanLogSchema = z.looseObject({
  /** The released task, `<file stem>/<line>` (released-tasks.jsonl's `id`). */
  id: z.string().min(1),
  /** Whose episode; absent: the command's --model (default `agent`). */
  model: z.string().min(1).optional(),
  /** The completion check's verdict; the released recorder writes a boolean, its evaluation reads `str(x) == "True"`. */
  success: z.union([z.boolean(), z.enum(['True', 'False', 'true', 'false'])]).transform((v) => v === true || v === 'True' || v === 'true'),
  /** The actions that executed, in order (`<char0> [walk] <kitchen> (205)`; the `<char0>` prefix is optional). */
  action_history: z.array(z.string()),
  /** The recorder's moving distance (straight segments through the `[walk]` targets); absent: unknown. */
  traverse_distance: z.number().nonnegative().optional(),
  /** The target's bounding-box volume and its distance from the start (the occlusion subsets); both or neither. */
  item_size: z.number().nonnegative().optional(),
  init_distance: z.number().nonnegative().optional(),
});
export type EtPlanLog = z.infer<typeof EtPlanLogSchema>;

/** Reads a log file; a bad line is skipped and named in `skipped` (one bad line never sinks the rest). */
export function readEtPlanLogs(path: string, skipped: SkippedRecord[]): Promise<EtPlanLog[]> {
  return readJsonlLenient<EtPlanLog>(path, (raw) => {
    const r = EtPlanLogSchema.safeParse(raw);
    if (r.success) return { value: r.data };
    const issue = r.error.issues[0];
    return { error: `not an et-plan log record: ${issue.path.join('.') || '(record)'}: ${issue.message}` };
  }, skipped);
}

/** Writes a log file atomically. */
export function writeEtPlanLogs(path: string, logs: Iterable<EtPlanLog>): Promise<void> {
  return writeJsonlAtomic(path, logs);
}
