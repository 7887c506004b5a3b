/**
 * VSP statistics: per-model accuracies by task, level and input variant, and the regression across
 * models of main-task success on perception (T1-T3) and reasoning (T4) accuracy, fitted with the same
 * OLS (and intervals) as the GSR-Bench regression.
 */
import { regress, type RegressionReport } from './regression.js';

/** The score-cell fields the statistics read (src/benchmarks/types.ts ScoreCell extends it). */
export interface CellLike {
  model: string;
  mode: string;
  task: string;
  level: string;
  variant: string;
  n: number;
  /** Sum of credits (the number correct unless the scorer gives partial credit). */
  credit: number;
}

export const VSP_PERCEPTION = ['maze-t1', 'maze-t2', 'maze-t3', 'blocks-t1', 'blocks-t2', 'blocks-t3'];
export const VSP_REASONING = ['maze-t4', 'blocks-t4'];
export const VSP_MAIN = ['maze-main', 'blocks-main'];

/** Pooled accuracy (credit / n) over the cells that pass `keep`; null when there are none. */
export function pooledAccuracy(cells: readonly CellLike[], keep: (c: CellLike) => boolean): number | null {
  let n = 0;
  let credit = 0;
  for (const c of cells) {
    if (!keep(c)) continue;
    n += c.n;
    credit += c.credit;
  }
  return n === 0 ? null : credit / n;
}

/** Mean of per-task pooled accuracies over `tasks` (each task weighs alike); null if any is missing. */
function taskMean(cells: readonly CellLike[], base: (c: CellLike) => boolean, tasks: readonly string[]): number | null {
  const accs = tasks.map((t) => pooledAccuracy(cells, (c) => base(c) && c.task === t));
  return accs.some((a) => a === null) ? null : (accs as number[]).reduce((s, a) => s + a, 0) / accs.length;
}

export interface VspModelSummary {
  model: string;
  mode: string;
  variant: string;
  /** Pooled accuracy per task (over its levels). */
  tasks: Record<string, number>;
  /** Means over tasks: main (maze, blocks), perception (T1-T3 of both games), reasoning (T4 of both). */
  main: number | null;
  perception: number | null;
  reasoning: number | null;
}

export function vspModelSummaries(cells: readonly CellLike[]): VspModelSummary[] {
  const keys = new Map<string, { model: string; mode: string; variant: string }>();
  for (const c of cells) keys.set(`${c.model}\0${c.mode}\0${c.variant}`, { model: c.model, mode: c.mode, variant: c.variant });
  return [...keys.values()].map((k) => {
    const base = (c: CellLike) => c.model === k.model && c.mode === k.mode && c.variant === k.variant;
    const tasks: Record<string, number> = {};
    for (const t of new Set(cells.filter(base).map((c) => c.task))) tasks[t] = pooledAccuracy(cells, (c) => base(c) && c.task === t)!;
    return { ...k, tasks, main: taskMean(cells, base, VSP_MAIN), perception: taskMean(cells, base, VSP_PERCEPTION), reasoning: taskMean(cells, base, VSP_REASONING) };
  });
}

export type VspRegression = { mode: string; variant: string } & ({ fit: RegressionReport } | { fit: null; note: string });

/**
 * Main-task success ~ perception + reasoning across models (one row per model), for one scoring
 * mode and input variant. Needs more models than coefficients (3) to leave a residual degree of freedom.
 */
export function vspRegression(summaries: readonly VspModelSummary[], mode: string, variant: string): VspRegression {
  const rows = summaries.filter((s) => s.mode === mode && s.variant === variant && s.main !== null && s.perception !== null && s.reasoning !== null);
  if (rows.length < 4) return { mode, variant, fit: null, note: `needs at least 4 models with main, perception and reasoning scores (has ${rows.length})` };
  const fit = regress({
    labels: rows.map((r) => r.model),
    y: { name: 'main', values: rows.map((r) => r.main!) },
    x: [{ name: 'perception', values: rows.map((r) => r.perception!) }, { name: 'reasoning', values: rows.map((r) => r.reasoning!) }],
    skipped: [],
  });
  return { mode, variant, fit };
}
