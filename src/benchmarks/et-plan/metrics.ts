/**
 * ET-Plan-Bench metrics (pure; docs/et-plan.md, "Metrics"): success rate with a 95% Wilson interval,
 * sequence length, LCS length and ratio against the ground-truth plan over normalised action strings,
 * and moving distance, per model, family and subset. The defaults are clean definitions; the released
 * evaluation code's departures are named quirks (settings.ts, METRIC_QUIRKS).
 */
import { wilsonInterval } from '../../analysis/power.js';
import type { MetricQuirk } from './settings.js';

/** One episode as the metrics see it. */
export interface EpisodeOutcome {
  model: string;
  item: string;
  task: string;
  subsets: readonly string[];
  success: boolean;
  /** Engine actions that executed, in order. */
  actions: readonly string[];
  groundTruth: readonly string[];
  distance: number;
  stepCap: number;
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
}

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * The metrics of a group of episodes.
 * - success rate: successes / n.
 * - sequence length: executed actions, mean over successful episodes (failures-at-cap: over all
 *   episodes, a failed one counting its step cap).
 * - LCS length: LCS of the normalised ground truth and executed actions, mean over all episodes.
 * - LCS ratio: LCS / ground-truth length, mean over all episodes (ratio-one-when-longer: 1 whenever
 *   the ground truth is longer than the executed actions).
 * - distance: moving distance, mean over all episodes (distance-successes-only: over successes).
 * - drop-zero-distance: episodes that moved 0 are left out of every metric.
 */
export function groupMetrics(episodes: readonly EpisodeOutcome[], quirks: ReadonlySet<MetricQuirk>, at: Pick<MetricRow, 'model' | 'task' | 'subset'>): MetricRow {
  const kept = quirks.has('drop-zero-distance') ? episodes.filter((e) => e.distance !== 0) : episodes;
  const wins = kept.filter((e) => e.success);
  const lengths = quirks.has('failures-at-cap') ? kept.map((e) => (e.success ? e.actions.length : e.stepCap)) : wins.map((e) => e.actions.length);
  const lcs = kept.map((e) => {
    const gt = e.groundTruth.map(normaliseAction);
    const agent = e.actions.map(normaliseAction);
    const l = lcsLength(gt, agent);
    const ratio = quirks.has('ratio-one-when-longer') && gt.length > agent.length ? 1 : gt.length === 0 ? 0 : l / gt.length;
    return { l, ratio };
  });
  const w = kept.length ? wilsonInterval(wins.length, kept.length) : null;
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
    distance: mean((quirks.has('distance-successes-only') ? wins : kept).map((e) => e.distance)),
  };
}

/** Rows per model: each family and subset, each family over all its episodes, and all episodes. */
export function metricRows(episodes: readonly EpisodeOutcome[], quirks: ReadonlySet<MetricQuirk>): MetricRow[] {
  const rows: MetricRow[] = [];
  const models = [...new Set(episodes.map((e) => e.model))];
  for (const model of models) {
    const mine = episodes.filter((e) => e.model === model);
    const tasks = [...new Set(mine.map((e) => e.task))];
    for (const task of tasks) {
      const ofTask = mine.filter((e) => e.task === task);
      rows.push(groupMetrics(ofTask, quirks, { model, task, subset: 'all' }));
      const subsets = [...new Set(ofTask.flatMap((e) => e.subsets))].sort();
      for (const subset of subsets) rows.push(groupMetrics(ofTask.filter((e) => e.subsets.includes(subset)), quirks, { model, task, subset }));
    }
    rows.push(groupMetrics(mine, quirks, { model, task: 'all', subset: 'all' }));
  }
  return rows;
}
