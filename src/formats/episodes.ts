/**
 * episodes.jsonl: one line per episode of a multi-step (episodic) benchmark, with every step the agent
 * took (docs/et-plan.md, "The episode loop"). Written once per model when its episodes are done.
 */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeJsonlAtomic } from '../util/fs.js';
import { readJsonlWithLines } from '../util/jsonl.js';

/** One engine action a fixed controller executed for a step (the paper's protocol). */
export const ControllerActionSchema = z.strictObject({
  line: z.string(),
  ok: z.boolean(),
  error: z.string().nullable(),
});
export type ControllerAction = z.infer<typeof ControllerActionSchema>;

export const EpisodeStepSchema = z.strictObject({
  /** 1-based. */
  step: z.number().int().positive(),
  /** The prompt's key in the run store; null when a baseline policy acted without a prompt. */
  key: z.string().nullable(),
  /** The reply as received (a policy's: the action it chose). */
  reply: z.string(),
  /** The action read from the reply (the protocol's decision), or null when none could be read. */
  action: z.string().nullable(),
  /** The action was read and executed without error. */
  ok: z.boolean(),
  /** Why not: the reading, parsing, rule or engine error. */
  error: z.string().nullable(),
  /** Engine actions a fixed controller executed for this step (the paper's protocol only). */
  controller: z.array(ControllerActionSchema).optional(),
  /** Digest of the observation after the step (room, visible ids, held ids). */
  obs: z.string(),
  /** The character's room after the step (null: none). */
  room: z.number().int().nullable(),
  /** Ids held after the step, right hand first. */
  held: z.array(z.number().int()),
  /** Completion-criteria steps met so far (the monitor over the state sequence). */
  progress: z.number().int().nonnegative(),
  /** Moving distance so far. */
  distance: z.number().nonnegative(),
});
export type EpisodeStep = z.infer<typeof EpisodeStepSchema>;

export const EPISODE_ENDS = ['success', 'cap', 'exhausted', 'failed'] as const;

export const EpisodeRecordSchema = z.strictObject({
  item: z.string().min(1),
  task: z.string().min(1),
  level: z.string(),
  /** Subsets the item belongs to (ET-Plan-Bench: occlusion-size, occlusion-distance). */
  subsets: z.array(z.string()),
  model: z.string().min(1),
  /** The protocol the episode ran (ET-Plan-Bench: step, paper), as its prompts' variant. */
  variant: z.string().min(1),
  /** `ok`: the episode ran to its end; `failed`: a request failed after its retries (the episode stopped there). */
  status: z.enum(['ok', 'failed']),
  /** The failed request's reason; null when ok. */
  error: z.string().nullable(),
  /** The completion criteria were met. */
  success: z.boolean(),
  /** Engine actions a fixed controller executed before its first question (the released protocol). */
  controller_before: z.array(ControllerActionSchema).optional(),
  /** The completion monitor's verdict, where the protocol decides success otherwise (the released controller). */
  monitor_success: z.boolean().optional(),
  /** success, cap (the step cap was reached), exhausted (the controller had nothing left to try), failed. */
  end: z.enum(EPISODE_ENDS),
  step_cap: z.number().int().positive(),
  /** Criteria steps of the task (success: progress equals it). */
  criteria_steps: z.number().int().positive(),
  /** Digest of the observation before the first step. */
  start_obs: z.string(),
  steps: z.array(EpisodeStepSchema),
  /** The engine actions that executed without error, in order (for sequence length and LCS). */
  actions: z.array(z.string()),
  distance: z.number().nonnegative(),
  /**
   * The released recorder's moving distance (calculate_distance_traversal): straight segments from the
   * start position through the targets of the executed `[walk]` lines only. Absent in records written
   * before it was kept.
   */
  walk_distance: z.number().nonnegative().optional(),
});
export type EpisodeRecord = z.infer<typeof EpisodeRecordSchema>;

/** Reads an episodes file; a bad line is an error naming file and line. */
export async function readEpisodes(path: string): Promise<EpisodeRecord[]> {
  const out: EpisodeRecord[] = [];
  for await (const { line, value } of readJsonlWithLines<unknown>(path)) {
    const r = EpisodeRecordSchema.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new GsrError(`${path}:${line}: not an episode record: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
    }
    out.push(r.data);
  }
  return out;
}

/** Writes an episodes file atomically (all lines or none). */
export function writeEpisodes(path: string, episodes: Iterable<EpisodeRecord>): Promise<void> {
  return writeJsonlAtomic(path, episodes);
}
