/** The report's tables as data: Table 1/2 with bootstrap CIs, DAP with McNemar, breakdowns (pure). */
import { orderSplits } from '../formats/manifest.js';
import { countNoBox, noLabelNote } from '../scoring/unparsed.js';
import { bootstrapMean, bootstrapMeanOfMeans, bootstrapMeanOfRatios, type BootstrapInterval, type RatioGroup } from './bootstrap.js';
import { groupBy } from './outcomes.js';
import type { ItemOutcome, ModelResults, ReasoningVariant } from './results-types.js';
import { circularChanceTest, mcnemarPaired, type McNemarResult } from './tests.js';

/** A value as the report shows it: the summary file's number, with a bootstrap CI (of the same estimator) when items exist. */
export interface Cell {
  value: number | null;
  ci: BootstrapInterval | null;
  n?: number;
}

export interface StatOptions {
  seed: number;
  resamples: number;
}

const rootVariant = (r: ModelResults): ReasoningVariant | undefined => r.reasoning.find((v) => v.variant === '');

/** Task names as the report labels them (the paper's, Section 3). */
export const TASK_NAMES: Record<string, string> = { tg: 'TG (template-based generation)', mc: 'MC (multiple choice)' };
const TASK_ORDER = ['tg', 'mc'];
const NO_DAP_NAMES = ['nodap', 'no-dap', 'no_dap', 'baseline'];
/** Result sets that are not a reasoning task of their own: DAP and its comparison have their table. */
const NOT_TASKS = ['dap', ...NO_DAP_NAMES];

/**
 * A model's result set for a reasoning task: its subfolder named after the task (the pipeline's `tg/`,
 * `mc/`), else its own folder when that was scored on the task (`gsr score reasoning` writes `task`).
 * `task` undefined: the model's own folder, whatever its task.
 */
export function taskVariant(r: ModelResults, task?: string): ReasoningVariant | undefined {
  const root = rootVariant(r);
  if (task === undefined) return root;
  return r.reasoning.find((v) => v.variant === task && v.summary) ?? (root?.summary?.task === task ? root : undefined);
}

/**
 * The reasoning tasks the results hold, TG then MC then others: each gets its own Table 1 and position
 * bias. Results whose own folder names no task give one unlabelled entry (undefined).
 */
export function reasoningTasks(results: ModelResults[]): Array<string | undefined> {
  const tasks = new Set<string>();
  let unlabelled = false;
  for (const r of results) {
    const root = rootVariant(r)?.summary;
    if (root?.task && !NOT_TASKS.includes(root.task)) tasks.add(root.task);
    else if (root) unlabelled = true;
    for (const v of r.reasoning) if (v.variant !== '' && v.summary && !NOT_TASKS.includes(v.variant) && (v.summary.task ?? v.variant) === v.variant) tasks.add(v.variant);
  }
  const rank = (t: string) => (TASK_ORDER.includes(t) ? TASK_ORDER.indexOf(t) : TASK_ORDER.length);
  const ordered: Array<string | undefined> = [...tasks].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return unlabelled && ordered.length === 0 ? [undefined] : ordered;
}
const asNumbers = (xs: boolean[]) => xs.map((b) => (b ? 1 : 0));

/**
 * A split's items as the bootstrap resamples them, for each measure's own estimator: CircularEval is
 * the share of items right in every rotation; VanillaEval is pooled over prompts (prompts right /
 * prompts, as scoring computes it), so its items are resampled whole with their rotations.
 */
const estimators: Record<'circular' | 'vanilla', (items: ItemOutcome[]) => RatioGroup> = {
  circular: (items) => ({ num: items.map((i) => (i.circular ? 1 : 0)) }),
  vanilla: (items) => ({ num: items.map((i) => i.right), den: items.map((i) => i.rotations) }),
};

/** Table 1: per split CircularEval and VanillaEval accuracy, and the Total Average, of one task. */
export interface ReasoningTable {
  /** The task (`tg`, `mc`, ...); undefined when the results name none. */
  task?: string;
  splits: string[];
  rows: { model: string; cells: Record<string, { circular: Cell; vanilla: Cell }>; total: { circular: Cell; vanilla: Cell } }[];
}

export function buildReasoningTable(results: ModelResults[], o: StatOptions, task?: string): ReasoningTable {
  const withReasoning = results.filter((r) => taskVariant(r, task)?.summary);
  const splits = orderSplits(withReasoning.flatMap((r) => Object.keys(taskVariant(r, task)!.summary!.splits)));
  const rows = withReasoning.map((r) => {
    const v = taskVariant(r, task)!;
    const summary = v.summary!;
    const bySplit = groupBy(v.items ?? [], (i) => i.split);
    const cells: ReasoningTable['rows'][number]['cells'] = {};
    for (const split of splits) {
      const s = summary.splits[split];
      const items = bySplit.get(split);
      const ci = (m: keyof typeof estimators) => (s && items ? bootstrapMeanOfRatios([estimators[m](items)], o) : null);
      cells[split] = {
        circular: { value: s?.circular ?? null, ci: ci('circular'), n: s?.n },
        vanilla: { value: s?.vanilla ?? null, ci: ci('vanilla'), n: s?.n },
      };
    }
    // Total Average = the plain mean of the split figures: resampled within each split.
    const totalCi = (m: keyof typeof estimators) => (v.items ? bootstrapMeanOfRatios([...bySplit.values()].map(estimators[m]), o) : null);
    const ta = summary.total_average;
    return {
      model: r.model,
      cells,
      total: {
        circular: { value: typeof ta?.circular === 'number' ? ta.circular : null, ci: totalCi('circular') },
        vanilla: { value: typeof ta?.vanilla === 'number' ? ta.vanilla : null, ci: totalCi('vanilla') },
      },
    };
  });
  return { task, splits, rows };
}

/** Table 2: G-Score per split/role column and the Avg G-Score. */
export interface GroundingTable {
  columns: string[];
  /** `answers`: the model's labelled objects and how many got no box (unparsed answers, missing ones), over all columns; `no_label`: objects without a label. */
  rows: { model: string; cells: Record<string, Cell>; avg: Cell; answers: { objects: number; unparsed: number; missing: number; no_label: number } }[];
  /** Objects without a label and the columns that leave Avg G-Score undefined, in words (one line per distinct case). */
  notes: string[];
  /** The annotation detector's rows (mean confidence, share >= 0.5) per column, from the first model that has them. */
  detector: { from: string; columns: Record<string, { mean_confidence: number | null; share_confident: number | null }> } | null;
}

function detectorOf(r: ModelResults): GroundingTable['detector'] {
  const d = r.grounding?.detector as { columns?: Record<string, { mean_confidence?: unknown; share_confident?: unknown }> } | undefined;
  if (!d || typeof d.columns !== 'object' || d.columns === null) return null;
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  const columns: NonNullable<GroundingTable['detector']>['columns'] = {};
  for (const [k, v] of Object.entries(d.columns)) columns[k] = { mean_confidence: num(v?.mean_confidence), share_confident: num(v?.share_confident) };
  return { from: r.model, columns };
}

export function buildGroundingTable(results: ModelResults[], o: StatOptions): GroundingTable {
  const withGrounding = results.filter((r) => r.grounding);
  const roleOrder = (c: string) => (c.endsWith('/subject') ? 0 : c.endsWith('/object') ? 1 : 2);
  const allColumns = [...new Set(withGrounding.flatMap((r) => Object.keys(r.grounding!.columns)))];
  const splitOrder = orderSplits(allColumns.map((c) => c.split('/')[0]));
  const columns = allColumns.sort(
    (a, b) => splitOrder.indexOf(a.split('/')[0]) - splitOrder.indexOf(b.split('/')[0]) || roleOrder(a) - roleOrder(b) || a.localeCompare(b),
  );
  const rows = withGrounding.map((r) => {
    const g = r.grounding!;
    const byColumn = groupBy(r.groundingOutcomes ?? [], (h) => `${h.split}/${h.role}`);
    const cells: Record<string, Cell> = {};
    for (const c of columns) {
      const col = g.columns[c];
      const hits = byColumn.get(c);
      cells[c] = { value: col?.accuracy ?? null, ci: col && hits ? bootstrapMean(asNumbers(hits.map((h) => h.hit)), o) : null, n: col?.n };
    }
    const avgCi = r.groundingOutcomes ? bootstrapMeanOfMeans([...byColumn.values()].map((hs) => asNumbers(hs.map((h) => h.hit))), o) : null;
    const { total: objects, unparsed, missing, no_label } = countNoBox(Object.values(g.columns));
    const avg = typeof g.avg_g_score === 'number' ? g.avg_g_score : null;
    return { model: r.model, cells, avg: { value: avg, ci: avg === null ? null : avgCi }, answers: { objects, unparsed, missing, no_label } };
  });
  const withDetector = withGrounding.find((r) => detectorOf(r) !== null);
  const notes = [...new Set(withGrounding.map((r) => noLabelNote(r.grounding as Parameters<typeof noLabelNote>[0])).filter((n): n is string => n !== null))];
  return { columns, rows, notes, detector: withDetector ? detectorOf(withDetector) : null };
}

/** DAP: CircularEval with and without the depth hint on the same items, with an exact McNemar test. */
export interface DapRow {
  model: string;
  split: string;
  /** `all` or a relation group such as `front/behind`. */
  subset: string;
  n: number;
  without: number;
  with: number;
  mcnemar: McNemarResult;
}

/**
 * The DAP variant is the subfolder named `dap` or whose reasoning.json has task `dap`; the comparison
 * is the subfolder `nodap` (or `no-dap`, `baseline`), else the model folder's own reasoning.
 */
export function buildDapTable(results: ModelResults[]): DapRow[] {
  const rows: DapRow[] = [];
  for (const r of results) {
    const dap = r.reasoning.find((v) => v.variant !== '' && v.items && (v.variant === 'dap' || v.summary?.task === 'dap'));
    const base =
      r.reasoning.find((v) => NO_DAP_NAMES.includes(v.variant) && v.items) ?? r.reasoning.find((v) => v.variant === '' && v.items && v.summary?.task !== 'dap');
    if (!dap || !base) continue;
    const baseBy = new Map(base.items!.map((i) => [`${i.split}\u0000${i.item}`, i]));
    const pairs = dap.items!.flatMap((d) => {
      const b = baseBy.get(`${d.split}\u0000${d.item}`);
      return b ? [{ split: d.split, relation: d.relation, with: d.circular, without: b.circular }] : [];
    });
    for (const [split, ps] of groupBy(pairs, (p) => p.split)) {
      const subsets: [string, typeof ps][] = [['all', ps]];
      const fb = ps.filter((p) => p.relation === 'front' || p.relation === 'behind');
      if (fb.length > 0 && fb.length < ps.length) subsets.push(['front/behind', fb]);
      for (const [subset, list] of subsets) {
        rows.push({
          model: r.model,
          split,
          subset,
          n: list.length,
          without: list.filter((p) => p.without).length / list.length,
          with: list.filter((p) => p.with).length / list.length,
          mcnemar: mcnemarPaired(list.map((p) => p.with), list.map((p) => p.without)),
        });
      }
    }
  }
  return rows;
}

/** Per-relation CircularEval accuracy with CIs, from item records. */
export interface RelationBreakdown {
  relations: string[];
  rows: { model: string; cells: Record<string, Cell> }[];
}

export function buildRelationBreakdown(results: ModelResults[], o: StatOptions): RelationBreakdown {
  const withItems = results.filter((r) => rootVariant(r)?.items);
  const relations = [...new Set(withItems.flatMap((r) => rootVariant(r)!.items!.map((i) => i.relation)))].sort();
  const rows = withItems.map((r) => {
    const by = groupBy(rootVariant(r)!.items!, (i) => i.relation);
    const cells: Record<string, Cell> = {};
    for (const rel of relations) {
      const items = by.get(rel);
      cells[rel] = items
        ? { value: items.filter((i) => i.circular).length / items.length, ci: bootstrapMean(asNumbers(items.map((i) => i.circular)), o), n: items.length }
        : { value: null, ci: null };
    }
    return { model: r.model, cells };
  });
  return { relations, rows };
}

/**
 * Per-split counts and a test of CircularEval against chance. Statistic: items passing CircularEval.
 * H0: item i passes with probability 1/k_i, k_i its own number of options (the most an answerer
 * with no information on the right option can reach; random answers to every rotation pass with
 * (1/k)^k). Exact one-sided Poisson-binomial p. The first pass is not tested: the datasets put the
 * right option first, so an always-"A" answerer would read as far above chance there.
 */
export interface SplitBreakdownRow {
  model: string;
  split: string;
  /** Items. */
  n: number;
  /** Prompts (rotations of the items); null when the results do not say. */
  prompts: number | null;
  /** Prompts whose answer was missing, failed or unreadable. */
  unparsed: number | null;
  /** Fewest and most options of the split's items. */
  options: { min: number; max: number } | null;
  /** Items right in every rotation. */
  circular_correct: number | null;
  /** Items expected to pass under H0: the sum of 1/k over items. */
  chance_expected: number | null;
  /** One-sided exact p of at least `circular_correct` passes under H0. */
  chance_p: number | null;
}

/** The null hypothesis of {@link SplitBreakdownRow.chance_p}, in words, for the table that prints it. */
export const CHANCE_NULL =
  'H0: each item passes CircularEval with probability 1/k, k = its number of options (the most an answerer with no information on the right option can reach); one-sided exact Poisson-binomial test over items.';

export function buildSplitBreakdown(results: ModelResults[]): SplitBreakdownRow[] {
  const rows: SplitBreakdownRow[] = [];
  for (const r of results) {
    const v = rootVariant(r);
    if (!v?.summary) continue;
    const by = groupBy(v.items ?? [], (i) => i.split);
    for (const split of orderSplits(Object.keys(v.summary.splits))) {
      const s = v.summary.splits[split];
      const items = by.get(split);
      const row: SplitBreakdownRow = { model: r.model, split, n: s.n, prompts: s.prompts ?? null, unparsed: s.unparsed ?? null, options: null, circular_correct: null, chance_expected: null, chance_p: null };
      if (items && items.length > 0) {
        const ks = items.map((i) => i.options);
        row.options = { min: Math.min(...ks), max: Math.max(...ks) };
        row.circular_correct = items.filter((i) => i.circular).length;
        const test = circularChanceTest(row.circular_correct, ks);
        row.chance_expected = test.expected;
        row.chance_p = test.p;
      }
      rows.push(row);
    }
  }
  return rows;
}

/**
 * Position bias of one task (see {@link taskVariant}) as shares of answers per shown position, per
 * model. Reads scoring's `{n, chosen: {A: share, ...}, correct: {...}}`; also `{pos: count}` or
 * `{split: {pos: count}}` (summed), turned into shares.
 */
export function positionBiasRows(results: ModelResults[], task?: string): { category: string; series: string; value: number }[] {
  const rows: { category: string; series: string; value: number }[] = [];
  for (const r of results) {
    const raw = taskVariant(r, task)?.summary?.position_bias as Record<string, unknown> | undefined;
    if (!raw || typeof raw !== 'object') continue;
    const pb = raw.chosen && typeof raw.chosen === 'object' ? (raw.chosen as Record<string, unknown>) : raw;
    const totals = new Map<string, number>();
    for (const [k, v] of Object.entries(pb as Record<string, unknown>)) {
      if (typeof v === 'number') totals.set(k, (totals.get(k) ?? 0) + v);
      else if (v && typeof v === 'object') {
        for (const [pos, c] of Object.entries(v as Record<string, unknown>)) if (typeof c === 'number') totals.set(pos, (totals.get(pos) ?? 0) + c);
      }
    }
    const sum = [...totals.values()].reduce((s, v) => s + v, 0);
    if (sum <= 0) continue;
    for (const [pos, c] of [...totals].sort((a, b) => a[0].localeCompare(b[0]))) rows.push({ category: pos, series: r.model, value: c / sum });
  }
  return rows;
}
