/**
 * ET-Plan-Bench metrics (pure; docs/et-plan.md, "Metrics"): success rate with a 95% Wilson interval,
 * sequence length, LCS length and ratio against the ground-truth plan over normalised action strings,
 * and moving distance, per model, family and subset. The defaults are clean definitions; the released
 * evaluation code's departures are named quirks (settings.ts, METRIC_QUIRKS).
 */
import { wilsonInterval } from '../../analysis/power.js';
import { OCCLUSION, percentile } from './occlusion.js';
import { STEP_MAX, type MetricQuirk, type OcclusionPool } from './settings.js';

/** One episode as the metrics see it. */
export interface EpisodeOutcome {
  model: string;
  item: string;
  task: string;
  /** The item's occlusion subsets as tagged at generation (used unless they are recomputed: occlusionTags). */
  subsets: readonly string[];
  success: boolean;
  /** Engine actions that executed, in order. */
  actions: readonly string[];
  groundTruth: readonly string[];
  /** Moving distance as the episode measured it (walks and moving finds); null when unknown (a log without one). */
  distance: number | null;
  /** The released recorder's distance: straight segments between `[walk]` targets only (distance-walks-only). */
  walkDistance?: number | null;
  stepCap: number;
  /** Whether a record (an episode, a log line) exists; false: the item counts as a failure, and the released scripts skip it. */
  recorded?: boolean;
  /** The occlusion figures: target size and start distance (absent: in no recomputed subset). */
  figures?: { size: number; startDistance: number };
}

/**
 * An action line as the released evaluation compares them: the `[verb]` and every `<name>`, lower-case,
 * joined by spaces, ids dropped; a leading `<char0>` (Unity's form) is left out. `[putin] <apple> (21)
 * <fridge> (20)` is `putin apple fridge`.
 */
export function normaliseAction(line: string): string {
  const s = line.trim().replace(/^<char0>\s*/i, '');
  const verb = /\[([^\]]*)\]/.exec(s);
  const names = [...s.matchAll(/<([^>]*)>/g)].map((m) => m[1]);
  return [...(verb ? [verb[1]] : []), ...names].join(' ').toLowerCase();
}

/** Length of the longest common subsequence of two sequences (elements compared with ===). */
export function lcsLength<T>(a: readonly T[], b: readonly T[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

export interface MetricRow {
  model: string;
  /** Family, or `all`. */
  task: string;
  /** Subset, or `all`. */
  subset: string;
  /** Episodes counted (after drop-zero-distance). */
  n: number;
  /** Episodes left out by drop-zero-distance. */
  dropped: number;
  successes: number;
  success_rate: number | null;
  /** 95% Wilson score interval. */
  success_low: number | null;
  success_high: number | null;
  sequence_length: number | null;
  lcs_length: number | null;
  lcs_ratio: number | null;
  distance: number | null;
  /** Why some values are empty (no episode; no success, where the released script divides by zero), else null. */
  note: string | null;
}

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The distance a metric reads: the released recorder's (walks only) under distance-walks-only. */
function distanceOf(e: EpisodeOutcome, quirks: ReadonlySet<MetricQuirk>): number | null {
  return quirks.has('distance-walks-only') && e.walkDistance !== undefined ? e.walkDistance : e.distance;
}

/**
 * The metrics of a group of episodes.
 * - success rate: successes / n.
 * - sequence length: executed actions, mean over successful episodes (failures-at-cap: over all
 *   episodes, a failed one counting its step cap; failures-at-step-max: counting STEP_MAX = 40).
 * - LCS length: LCS of the normalised ground truth and executed actions, mean over all episodes.
 * - LCS ratio: LCS / ground-truth length, mean over all episodes (ratio-one-when-longer: 1 whenever
 *   the ground truth is longer than the executed actions).
 * - distance: moving distance, mean over the episodes that have one (distance-successes-only: over
 *   successes; distance-walks-only: the released recorder's, `[walk]` lines only).
 * - drop-zero-distance: episodes whose distance is 0 are left out of every metric.
 * A value with nothing to average is null, and `note` says why.
 */
export function groupMetrics(episodes: readonly EpisodeOutcome[], quirks: ReadonlySet<MetricQuirk>, at: Pick<MetricRow, 'model' | 'task' | 'subset'>): MetricRow {
  const kept = quirks.has('drop-zero-distance') ? episodes.filter((e) => distanceOf(e, quirks) !== 0) : episodes;
  const wins = kept.filter((e) => e.success);
  const failedAt = (e: EpisodeOutcome) => (quirks.has('failures-at-step-max') ? STEP_MAX : e.stepCap);
  const allSteps = quirks.has('failures-at-cap') || quirks.has('failures-at-step-max');
  const lengths = allSteps ? kept.map((e) => (e.success ? e.actions.length : failedAt(e))) : wins.map((e) => e.actions.length);
  const lcs = kept.map((e) => {
    const gt = e.groundTruth.map(normaliseAction);
    const agent = e.actions.map(normaliseAction);
    const l = lcsLength(gt, agent);
    const ratio = quirks.has('ratio-one-when-longer') && gt.length > agent.length ? 1 : gt.length === 0 ? 0 : l / gt.length;
    return { l, ratio };
  });
  const distances = (quirks.has('distance-successes-only') ? wins : kept).map((e) => distanceOf(e, quirks)).filter((d): d is number => d !== null);
  const w = kept.length ? wilsonInterval(wins.length, kept.length) : null;
  const notes: string[] = [];
  if (kept.length === 0) notes.push(episodes.length ? 'every episode dropped (zero distance)' : 'no episode');
  else if (wins.length === 0) {
    const empty = [...(allSteps ? [] : ['sequence length']), ...(quirks.has('distance-successes-only') ? ['moving distance'] : [])];
    if (empty.length) notes.push(`no successful episode: ${empty.join(' and ')} empty${quirks.has('distance-successes-only') ? ' (the released script divides by zero here)' : ''}`);
  }
  if (distances.length === 0 && kept.some((e) => distanceOf(e, quirks) === null) && !(quirks.has('distance-successes-only') && wins.length === 0)) notes.push('no moving distance in the records');
  return {
    ...at,
    n: kept.length,
    dropped: episodes.length - kept.length,
    successes: wins.length,
    success_rate: kept.length ? wins.length / kept.length : null,
    success_low: w?.low ?? null,
    success_high: w?.high ?? null,
    sequence_length: mean(lengths),
    lcs_length: mean(lcs.map((x) => x.l)),
    lcs_ratio: mean(lcs.map((x) => x.ratio)),
    distance: mean(distances),
    note: notes.length ? notes.join('; ') : null,
  };
}

/** How occlusion subsets are taken when they are recomputed at scoring. */
export interface OcclusionOptions {
  pool: OcclusionPool;
  /** Over the tasks that have a record, per model (the released occlusion script); else over every task. */
  recordedOnly: boolean;
}

/**
 * Occlusion subsets recomputed from the figures, one list per outcome (same order): per model, over
 * each family's outcomes (or all of them, pooled) that have figures (and a record, with
 * `recordedOnly`), `occlusion-size` for a target size strictly below the 20th percentile and
 * `occlusion-distance` for a start distance strictly above the 80th (numpy's linear percentiles), as
 * evaluate_nav_mani_occlusion.py takes them.
 */
export function occlusionTags(outcomes: readonly EpisodeOutcome[], o: OcclusionOptions): string[][] {
  const tags = outcomes.map((): string[] => []);
  const groups = new Map<string, number[]>();
  outcomes.forEach((e, i) => {
    if (e.figures === undefined || (o.recordedOnly && e.recorded === false)) return;
    const key = `${e.model}\0${o.pool === 'pooled' ? '' : e.task}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [i]);
    else g.push(i);
  });
  for (const idx of groups.values()) {
    const size = percentile(idx.map((i) => outcomes[i].figures!.size), OCCLUSION.size);
    const distance = percentile(idx.map((i) => outcomes[i].figures!.startDistance), OCCLUSION.distance);
    for (const i of idx) {
      if (outcomes[i].figures!.size < size) tags[i].push('occlusion-size');
      if (outcomes[i].figures!.startDistance > distance) tags[i].push('occlusion-distance');
    }
  }
  return tags;
}

/** Whether metricRows recomputes the subsets (occlusion-over-recorded, or pooled percentiles). */
export function recomputesSubsets(quirks: ReadonlySet<MetricQuirk>, pool: OcclusionPool = 'family'): boolean {
  return quirks.has('occlusion-over-recorded') || pool === 'pooled';
}

/**
 * Rows per model: each family and subset, each family over all its episodes, and all episodes.
 * Subsets are the outcomes' own unless recomputesSubsets (then occlusionTags).
 */
export function metricRows(episodes: readonly EpisodeOutcome[], quirks: ReadonlySet<MetricQuirk>, pool: OcclusionPool = 'family'): MetricRow[] {
  const tags = recomputesSubsets(quirks, pool) ? occlusionTags(episodes, { pool, recordedOnly: quirks.has('occlusion-over-recorded') }) : episodes.map((e) => e.subsets);
  const subsetsOf = new Map(episodes.map((e, i) => [e, tags[i]]));
  const rows: MetricRow[] = [];
  const models = [...new Set(episodes.map((e) => e.model))];
  for (const model of models) {
    const mine = episodes.filter((e) => e.model === model);
    const tasks = [...new Set(mine.map((e) => e.task))];
    for (const task of tasks) {
      const ofTask = mine.filter((e) => e.task === task);
      rows.push(groupMetrics(ofTask, quirks, { model, task, subset: 'all' }));
      const subsets = [...new Set(ofTask.flatMap((e) => subsetsOf.get(e)!))].sort();
      for (const subset of subsets) rows.push(groupMetrics(ofTask.filter((e) => subsetsOf.get(e)!.includes(subset)), quirks, { model, task, subset }));
    }
    rows.push(groupMetrics(mine, quirks, { model, task: 'all', subset: 'all' }));
  }
  return rows;
}

/** The rows' notes as lines (`model, family, subset: note`), for a table's footnote. */
export function rowNotes(rows: readonly MetricRow[]): string[] {
  return rows.filter((r) => r.note !== null).map((r) => `${r.model}, ${r.task}, ${r.subset}: ${r.note}`);
}
