/**
 * ET-Plan-Bench's task record (one line of items.jsonl), shared by task generation
 * (src/benchmarks/et-plan/generate*.ts) and the episode loop and metrics (episodes*.ts).
 * docs/et-plan.md says which parts follow the paper (its sections 3 and 4) and which are this
 * toolkit's choices.
 */
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';
import { ET_PLAN_FAMILIES } from './families.js';

export { ET_PLAN_FAMILIES };

export type EtPlanFamily = (typeof ET_PLAN_FAMILIES)[number];

/** Subsets selected after generation over all tasks of a run (percentiles: docs/et-plan.md). */
export const ET_PLAN_SUBSETS = ['occlusion-size', 'occlusion-distance'] as const;
export type EtPlanSubset = (typeof ET_PLAN_SUBSETS)[number];

/** A node of the task's apartment, by id, with its class for messages and LCS strings. */
export const NodeRefSchema = z.object({ id: z.number().int().nonnegative(), class: z.string().min(1) });
export type NodeRef = z.infer<typeof NodeRefSchema>;

/**
 * One relation that must hold: `from REL to`. `from` is a node or `character` (the agent; the
 * released task files write `robot`).
 */
export const CriterionSchema = z.object({
  relation: z.enum(['CLOSE', 'ON', 'INSIDE', 'FACING']),
  from: z.union([z.literal('character'), NodeRefSchema]),
  to: NodeRefSchema,
});
export type Criterion = z.infer<typeof CriterionSchema>;

/** A plan: engine script lines (`[walk] <kitchen> (205)`), in order. */
export const PlanSchema = z.array(z.string().min(1));

/** What the optional LLM stage (refine.ts) made of a task it kept; a task judged not sensible is dropped. */
export const REFINE_OUTCOMES = ['passed', 'rephrased', 'unreadable', 'rephrase-rejected', 'failed'] as const;

export const EtPlanItemSchema = z.looseObject({
  id: z.string().min(1),
  benchmark: z.literal('et-plan'),
  task: z.enum(ET_PLAN_FAMILIES),
  /** Difficulty tag within the family (for example the number of objects); '' when none. */
  level: z.string(),
  root: z.string().min(1).optional(),
  /** The apartment's graph file, relative to `root` (VirtualHome graph format: src/formats/vh-graph.ts). */
  apartment: z.string().min(1),
  /** The room the character starts in (the engine walks it there before step 1). */
  start_room: NodeRefSchema,
  /** The instruction shown to the agent, and the other template phrasings of the same task. */
  instruction: z.string().min(1),
  phrasings: z.array(z.string().min(1)).min(1),
  /**
   * Completion criteria as ordered steps: step k is met at some state after step k - 1 was met
   * (a monitor over the state sequence). Families without temporal order have one step.
   */
  criteria: z.array(z.array(CriterionSchema).min(1)).min(1),
  /**
   * Instances that count in a criterion node's place, by its id (decimal): the same class and, for a
   * target with a spatial constraint, meeting it at the start. Absent, or an id not listed: that id
   * alone. The monitor (monitor.ts) accepts any assignment of distinct ids.
   */
  candidates: z.record(z.string().regex(/^\d+$/), z.array(z.number().int().nonnegative()).min(1)).optional(),
  /** The objects the task is about (targets first), and the spatial-constraint anchor when there is one. */
  targets: z.array(NodeRefSchema).min(1),
  constraint: z.object({ relation: z.enum(['ON', 'INSIDE', 'CLOSE', 'FACING']), anchor: NodeRefSchema }).optional(),
  /** The destination's spatial constraint (the released mix's manipulation-spatial tasks): its instances that meet it at the start count. */
  destination_constraint: z.object({ relation: z.enum(['ON', 'INSIDE', 'CLOSE', 'FACING']), anchor: NodeRefSchema }).optional(),
  /** Arms the agent may use (two-arm tasks: 2; everything else: 1, enforced by the episode loop). */
  arms: z.union([z.literal(1), z.literal(2)]),
  /** Ground-truth plan built as the paper describes, and a distance-optimal oracle plan. Both execute. */
  ground_truth: PlanSchema.min(1),
  oracle: PlanSchema.min(1),
  /** Step cap of an episode (the released evaluation code's caps: docs/et-plan.md). */
  step_cap: z.number().int().positive(),
  subsets: z.array(z.enum(ET_PLAN_SUBSETS)),
  figures: z.object({
    /** Product of the first target's bounding-box size. */
    target_size: z.number().nonnegative(),
    /** Straight-line distance from the character's start to the first target. */
    start_distance: z.number().nonnegative(),
    /** Moving distance of the ground-truth and oracle plans. */
    ground_truth_distance: z.number().nonnegative(),
    oracle_distance: z.number().nonnegative(),
  }),
  /** Set by the LLM stage: the model, the outcome, the template instruction before, and why the reply was not used. */
  refined: z.strictObject({ model: z.string().min(1), outcome: z.enum(REFINE_OUTCOMES), template: z.string().min(1), problem: z.string().optional() }).optional(),
});
export type EtPlanItem = z.infer<typeof EtPlanItemSchema>;

/** Checks one items.jsonl record; a one-line GsrError names the first problem. */
export function parseEtPlanItem(raw: unknown): EtPlanItem {
  const r = EtPlanItemSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new GsrError(`not an et-plan item: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
  }
  return r.data;
}
