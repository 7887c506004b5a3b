/** The report's tables as data: Table 1/2 with bootstrap CIs, DAP with McNemar, breakdowns (pure). */
import { orderSplits } from '../formats/manifest.js';
import { bootstrapMean, bootstrapMeanOfMeans, type BootstrapInterval } from './bootstrap.js';
import { groupBy } from './outcomes.js';
import type { ItemOutcome, ModelResults, ReasoningVariant } from './results-types.js';
import { mcnemarPaired, binomialTest, type McNemarResult } from './tests.js';

/** A value as the report shows it: the summary file's number, with a bootstrap CI when items exist. */
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
const asNumbers = (xs: boolean[]) => xs.map((b) => (b ? 1 : 0));
const circularScore = (i: ItemOutcome) => (i.circular ? 1 : 0);

/** Table 1: per split CircularEval and VanillaEval accuracy, and the Total Average. */
export interface ReasoningTable {
  splits: string[];
  rows: { model: string; cells: Record<string, { circular: Cell; vanilla: Cell }>; total: { circular: Cell; vanilla: Cell } }[];
}

export function buildReasoningTable(results: ModelResults[], o: StatOptions): ReasoningTable {
  const withReasoning = results.filter((r) => rootVariant(r)?.summary);
  const splits = orderSplits(withReasoning.flatMap((r) => Object.keys(rootVariant(r)!.summary!.splits)));
  const rows = withReasoning.map((r) => {
    const v = rootVariant(r)!;
    const summary = v.summary!;
    const bySplit = groupBy(v.items ?? [], (i) => i.split);
    const cells: ReasoningTable['rows'][number]['cells'] = {};
    for (const split of splits) {
      const s = summary.splits[split];
      const items = bySplit.get(split);
      const ci = (pick: (i: ItemOutcome) => number) => (items ? bootstrapMean(items.map(pick), o) : null);
      cells[split] = {
        circular: { value: s?.circular ?? null, ci: s ? ci(circularScore) : null, n: s?.n },
        vanilla: { value: s?.vanilla ?? null, ci: s ? ci((i) => i.vanilla) : null, n: s?.n },
      };
    }
    const groups = (pick: (i: ItemOutcome) => number) => (v.items ? [...bySplit.values()].map((items) => items.map(pick)) : null);
    const totalCi = (pick: (i: ItemOutcome) => number) => {
      const g = groups(pick);
      return g ? bootstrapMeanOfMeans(g, o) : null;
    };
    const ta = summary.total_average;
    return {
      model: r.model,
      cells,
      total: {
        circular: { value: typeof ta?.circular === 'number' ? ta.circular : null, ci: totalCi(circularScore) },
        vanilla: { value: typeof ta?.vanilla === 'number' ? ta.vanilla : null, ci: totalCi((i) => i.vanilla) },
      },
    };
  });
  return { splits, rows };
}

/** Table 2: G-Score per split/role column and the Avg G-Score. */
export interface GroundingTable {
  columns: string[];
  rows: { model: string; cells: Record<string, Cell>; avg: Cell }[];
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
    return { model: r.model, cells, avg: { value: typeof g.avg_g_score === 'number' ? g.avg_g_score : null, ci: avgCi } };
  });
  const withDetector = withGrounding.find((r) => detectorOf(r) !== null);
  return { columns, rows, detector: withDetector ? detectorOf(withDetector) : null };
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

const NO_DAP_NAMES = ['nodap', 'no-dap', 'no_dap', 'baseline'];

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

/** Per-split counts and an exact binomial test of first-pass accuracy against chance (1 / options). */
export interface SplitBreakdownRow {
  model: string;
  split: string;
  n: number;
  unparsed: number | null;
  options: number | null;
  /** Items right on the first pass (rotation 0): a binomial sample at chance 1 / options. */
  first_correct: number | null;
  chance_p: number | null;
}

export function buildSplitBreakdown(results: ModelResults[]): SplitBreakdownRow[] {
  const rows: SplitBreakdownRow[] = [];
  for (const r of results) {
    const v = rootVariant(r);
    if (!v?.summary) continue;
    const by = groupBy(v.items ?? [], (i) => i.split);
    for (const split of orderSplits(Object.keys(v.summary.splits))) {
      const s = v.summary.splits[split];
      const items = by.get(split);
      // k options are asked in k rotations, so the rotation count gives the chance level.
      const options = items && items.length > 0 ? Math.max(...items.map((i) => i.rotations)) : null;
      const correct = items ? items.filter((i) => i.first).length : null;
      const chance = items && options && options > 1 && correct !== null ? binomialTest(correct, items.length, 1 / options).p_greater : null;
      rows.push({ model: r.model, split, n: s.n, unparsed: s.unparsed ?? null, options, first_correct: correct, chance_p: chance });
    }
  }
  return rows;
}

/**
 * Position bias as shares of answers per shown position, per model. Reads scoring's
 * `{n, chosen: {A: share, ...}, correct: {...}}`; also `{pos: count}` or `{split: {pos: count}}`
 * (summed), turned into shares.
 */
export function positionBiasRows(results: ModelResults[]): { category: string; series: string; value: number }[] {
  const rows: { category: string; series: string; value: number }[] = [];
  for (const r of results) {
    const raw = rootVariant(r)?.summary?.position_bias as Record<string, unknown> | undefined;
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
