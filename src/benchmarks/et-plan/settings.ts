/**
 * Settings of ET-Plan-Bench episodes (the pipeline's `benchmark.episodes`) and metrics
 * (`benchmark.metrics`); docs/et-plan.md says where each default comes from.
 */
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';
import { RELEASED_PROMPTING } from './released-prompts.js';

export const PROTOCOLS = ['step', 'paper', 'released'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
export const PERCEPTION_MODELS = ['reference', 'near-field', 'view-scan'] as const;
export type PerceptionModel = (typeof PERCEPTION_MODELS)[number];

export const START_POINTS = ['centre', 'spawn'] as const;
export type StartPoint = (typeof START_POINTS)[number];

export const EpisodeSettingsSchema = z.strictObject({
  /** step: one engine action per reply; paper: the LLM ranks rooms and picks objects, a fixed controller acts; released: the released code's agent. */
  protocol: z.enum(PROTOCOLS).default('step'),
  /** reference: the engine's visible set; near-field: that set cut by distance and size. */
  perception: z.enum(PERCEPTION_MODELS).default('reference'),
  /** Where near-field perception applies: every item, or only items of an occlusion subset. */
  perception_scope: z.enum(['all', 'occlusion']).default('all'),
  near_field: z.strictObject({
    /** Objects farther than this from the character are not seen (VirtualHome's FACING range: about 5). */
    radius: z.number().positive().default(5),
    /** Small objects are seen only this close (VirtualHome's CLOSE range: about 1.5). */
    small_radius: z.number().nonnegative().default(1.5),
    /** Small: bounding-box volume strictly below this percentile of the apartment's grabbable objects. */
    small_percentile: z.number().min(0).max(100).default(20),
  }).prefault({}),
  /** View-scan perception: things whose largest side over their distance is below this (radians) are not seen. */
  view_scan: z.strictObject({ min_angle: z.number().nonnegative().default(0.05) }).prefault({}),
  /** The released protocol's prompting: the released prompts, their CoT variant, or few-shot (our examples). */
  released: z.strictObject({ prompting: z.enum(RELEASED_PROMPTING).default('plain') }).prefault({}),
  /** Moving distance: straight segments between walk targets (the released evaluation's), or through doors. */
  route: z.enum(['straight', 'doors']).default('straight'),
  /** Show the layout map (large furniture by room, layout.ts) in every prompt: the paper's navigation with a layout map. */
  layout_map: z.boolean().default(false),
  /**
   * Where the character stands at step 1: `centre`, its start room's centre (after the engine walks it
   * there); `spawn`, a spawn point of that room (the released runs add the character to a room and it
   * spawns there; docs/et-plan.md, "Start").
   */
  start: z.enum(START_POINTS).default('centre'),
});
export type EpisodeSettings = z.infer<typeof EpisodeSettingsSchema>;

/**
 * The released evaluation code's departures from the clean metric definitions (docs/et-plan.md,
 * "Metrics"). `released` applies RELEASED_QUIRKS; `failures-at-step-max` is offered apart.
 */
export const METRIC_QUIRKS = [
  'drop-zero-distance', 'ratio-one-when-longer', 'failures-at-cap', 'distance-successes-only', 'distance-walks-only', 'occlusion-over-recorded', 'failures-at-step-max',
] as const;
export type MetricQuirk = (typeof METRIC_QUIRKS)[number];

/**
 * What `quirks: released` applies: the released scripts (evaluate_nav_mani.py, its occlusion variant,
 * the recorder's calculate_distance_traversal) on the families they score. `failures-at-step-max`
 * (a failure counts STEP_MAX = 40 in every family) is left out: the scripts score the single-object
 * manipulation families, whose cap is 40, and the released runners of the other families stop at
 * their own caps (20, 50, 75), so the family cap is the released value there.
 */
export const RELEASED_QUIRKS: readonly MetricQuirk[] = METRIC_QUIRKS.filter((q) => q !== 'failures-at-step-max');

/** The released scripts' STEP_MAX (constant/params.py): the sequence length they give a failure. */
export const STEP_MAX = 40;

/** Occlusion percentiles over each family's tasks, or pooled over every family of the run. */
export const OCCLUSION_POOLS = ['family', 'pooled'] as const;
export type OcclusionPool = (typeof OCCLUSION_POOLS)[number];

export const MetricSettingsSchema = z.strictObject({
  /** Quirks to apply, or `released` for RELEASED_QUIRKS; none by default (clean definitions). */
  quirks: z.union([z.literal('released'), z.array(z.enum(METRIC_QUIRKS))]).default([]),
  /** A second metric set shown beside the first (the published pipeline: clean beside released). */
  beside: z.union([z.literal('released'), z.literal('clean')]).optional(),
  /**
   * `family` (default): occlusion percentiles over one family's tasks; `pooled`: over all the run's
   * tasks together. Either way the subsets are recomputed at scoring when it is `pooled` or when
   * `occlusion-over-recorded` is on; otherwise the items' own subsets (tagged at generation) are used.
   */
  occlusion_pool: z.enum(OCCLUSION_POOLS).default('family'),
});

export interface MetricSettings {
  quirks: ReadonlySet<MetricQuirk>;
  /** The quirks of the metric set shown beside, when one is asked for. */
  beside?: ReadonlySet<MetricQuirk>;
  /** Defaults to `family`. */
  occlusionPool?: OcclusionPool;
}

function parse<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const r = schema.safeParse(raw ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new GsrError(`et-plan ${what}: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
  }
  return r.data;
}

export const parseEpisodeSettings = (raw: unknown): EpisodeSettings => parse(EpisodeSettingsSchema, raw, 'episodes');

export function parseMetricSettings(raw: unknown): MetricSettings {
  const s = parse(MetricSettingsSchema, raw, 'metrics');
  const out: MetricSettings = { quirks: new Set(s.quirks === 'released' ? RELEASED_QUIRKS : s.quirks), occlusionPool: s.occlusion_pool };
  if (s.beside !== undefined) out.beside = new Set(s.beside === 'released' ? RELEASED_QUIRKS : []);
  return out;
}

/** The metric set's name: clean, released, released+extra, or the quirks joined by `+`; `, pooled occlusion` when pooled. */
export function metricMode(m: MetricSettings): string {
  const released = RELEASED_QUIRKS.every((q) => m.quirks.has(q));
  const named = released ? ['released', ...METRIC_QUIRKS.filter((q) => m.quirks.has(q) && !RELEASED_QUIRKS.includes(q))] : METRIC_QUIRKS.filter((q) => m.quirks.has(q));
  return (named.join('+') || 'clean') + (m.occlusionPool === 'pooled' ? ', pooled occlusion' : '');
}
