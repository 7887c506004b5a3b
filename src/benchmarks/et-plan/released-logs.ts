/**
 * Scoring an external agent's logs on ET-Plan-Bench's released tasks (docs/et-plan.md, "Scoring agent
 * logs"): each log is matched to its released task by id, and the metrics are computed against the
 * task's ground-truth plan with the released scripts' definitions and the clean ones (metrics.ts).
 * Success is the log's own verdict, as the released evaluation reads it: the released scenes are not
 * public, so nothing can be replayed here. Pure: no I/O.
 */
import type { EtPlanLog } from '../../formats/et-plan-logs.js';
import type { EtPlanReleasedTask } from '../../formats/et-plan-released.js';
import { stepCap } from './generate.js';
import { metricRows, type EpisodeOutcome, type MetricRow } from './metrics.js';
import { RELEASED_QUIRKS, metricMode, type MetricQuirk, type MetricSettings, type OcclusionPool } from './settings.js';
import type { EtPlanFamily } from './task.js';

/**
 * The step cap of a released task: the family's (generate.ts, stepCap); multi-object tasks by the
 * relation their objects are put in with (ON 50, INSIDE 75).
 */
export function releasedStepCap(task: EtPlanReleasedTask): number {
  const put = task.criteria.flat().find((c) => c.relation === 'ON' || c.relation === 'INSIDE');
  return stepCap(task.family as EtPlanFamily, put?.relation === 'ON' ? 'ON' : 'INSIDE');
}

/** A Unity-syntax line in engine syntax: the `<charN> ` prefix removed, `[put]` written `[putback]` (the engine's put-on). */
export function engineSyntax(text: string): string {
  return text.replace(/^\s*<char\d+>\s*/i, '').replace(/^(\s*)\[put\]/i, '$1[putback]');
}

/** The ground truth as the released recorder would log it (Unity syntax): the oracle's log, success true. */
export function oracleLogs(tasks: readonly EtPlanReleasedTask[], model = 'oracle'): EtPlanLog[] {
  return tasks.map((t) => ({ id: t.id, model, success: true, action_history: t.ground_truth.map((l) => `<char0> ${l.replace(/^\[putback\]/, '[put]')}`) }));
}

export interface LogScores {
  /** The metric sets computed, each with its name (metricMode) and rows. */
  sets: { mode: string; quirks: MetricQuirk[]; rows: MetricRow[] }[];
  /** Log records scored, per model. */
  models: { model: string; logs: number; families: Record<string, number> }[];
  /** Log records not scored, with why (unknown task id, a second log of one task and model). */
  unmatched: string[];
  /** Released tasks with no log, per model and family (left out, as the released scripts skip them). */
  unlogged: Record<string, Record<string, number>>;
}

/** Outcomes of the logs that match a task (the first log of a task per model); the rest listed. */
export function logOutcomes(tasks: readonly EtPlanReleasedTask[], logs: readonly EtPlanLog[], defaultModel = 'agent'): { outcomes: EpisodeOutcome[]; unmatched: string[] } {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const seen = new Set<string>();
  const outcomes: EpisodeOutcome[] = [];
  const unmatched: string[] = [];
  for (const log of logs) {
    const model = log.model ?? defaultModel;
    const task = byId.get(log.id);
    if (task === undefined) {
      unmatched.push(`${model} ${log.id}: no released task with this id`);
      continue;
    }
    const key = `${model}\0${log.id}`;
    if (seen.has(key)) {
      unmatched.push(`${model} ${log.id}: a second log of this task (the first is scored)`);
      continue;
    }
    seen.add(key);
    const d = log.traverse_distance ?? null;
    outcomes.push({
      model, item: task.id, task: task.family, subsets: [], success: log.success, actions: log.action_history.map(engineSyntax), groundTruth: task.ground_truth,
      // The recorder's distance is already the walk-only one.
      distance: d, walkDistance: d, stepCap: releasedStepCap(task), recorded: true,
      ...(log.item_size !== undefined && log.init_distance !== undefined ? { figures: { size: log.item_size, startDistance: log.init_distance } } : {}),
    });
  }
  return { outcomes, unmatched };
}

/**
 * Scores logs with each metric set (default: clean, then released). Occlusion subsets are always
 * computed from the logs' figures at scoring (the tasks carry none), per model over the logged tasks.
 */
export function scoreReleasedLogs(
  tasks: readonly EtPlanReleasedTask[],
  logs: readonly EtPlanLog[],
  options: { sets?: readonly MetricSettings[]; defaultModel?: string } = {},
): LogScores {
  const sets = options.sets ?? [{ quirks: new Set<MetricQuirk>() }, { quirks: new Set(RELEASED_QUIRKS) }];
  const { outcomes, unmatched } = logOutcomes(tasks, logs, options.defaultModel);
  const models = [...new Set(outcomes.map((o) => o.model))];
  const unlogged: LogScores['unlogged'] = {};
  const summary: LogScores['models'] = [];
  for (const model of models) {
    const mine = new Set(outcomes.filter((o) => o.model === model).map((o) => o.item));
    const families: Record<string, number> = {};
    const missing: Record<string, number> = {};
    for (const t of tasks) {
      const to = mine.has(t.id) ? families : missing;
      to[t.family] = (to[t.family] ?? 0) + 1;
    }
    summary.push({ model, logs: mine.size, families });
    unlogged[model] = missing;
  }
  return {
    sets: sets.map((m) => {
      // The tasks carry no subsets: the logs' own figures give them, per model over what was logged.
      const quirks = new Set([...m.quirks, 'occlusion-over-recorded' as const]);
      const pool: OcclusionPool = m.occlusionPool ?? 'family';
      return { mode: metricMode(m), quirks: [...m.quirks], rows: metricRows(outcomes, quirks, pool) };
    }),
    models: summary,
    unmatched,
    unlogged,
  };
}
