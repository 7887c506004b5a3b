/**
 * Our measured values beside the GSR-Bench paper's published ones (Tables 1-3), with the difference
 * and whether the published value falls inside our 95% interval. Pure: the paper's tables and the
 * name map come in as data (src/formats/paper.ts reads them).
 */
import type { PaperNameMap, PaperRow, PaperTables } from '../formats/paper.js';
import { wilsonInterval } from './power.js';
import type { ModelResults } from './results-types.js';
import { buildDapTable, buildGroundingTable, buildReasoningTable, type Cell, type StatOptions } from './tables.js';

/** Table 1 columns (TG CircularEval) and the splits they are. */
export const TABLE1_SPLITS: ReadonlyArray<[string, string]> = [
  ['subset_a', 'whatsup-a'],
  ['subset_b', 'whatsup-b'],
  ['coco_one', 'coco-one'],
  ['coco_two', 'coco-two'],
  ['gqa_one', 'gqa-one'],
  ['gqa_two', 'gqa-two'],
];

/** Table 2 columns (G-Score) and the split/role columns they are. */
export const TABLE2_COLUMNS: ReadonlyArray<[string, string]> = [
  ['a_subject', 'whatsup-a/subject'],
  ['a_object', 'whatsup-a/object'],
  ['b_subject', 'whatsup-b/subject'],
  ['b_object', 'whatsup-b/object'],
  ['coco_one', 'coco-one/subject'],
  ['coco_two_subject', 'coco-two/subject'],
  ['coco_two_object', 'coco-two/object'],
  ['gqa_one', 'gqa-one/subject'],
  ['gqa_two_subject', 'gqa-two/subject'],
  ['gqa_two_object', 'gqa-two/object'],
];

/** One value: ours (%, with its 95% interval) beside the published one (%). */
export interface PublishedCell {
  /** The paper's column. */
  column: string;
  /** What it is in this project's names (a split, a split/role column, `total`, `avg`, `dap`, `nodap`). */
  ours_name: string;
  ours: number | null;
  low: number | null;
  high: number | null;
  published: number;
  /** ours − published, percentage points. */
  difference: number | null;
  /** Whether the published value lies inside our interval (null without one). */
  inside: boolean | null;
  /** Why ours is missing or how it was measured. */
  note?: string;
}

export interface PublishedComparison {
  table: 'Table 1' | 'Table 2' | 'Table 3';
  /** Results-folder model name. */
  model: string;
  /** The paper's model name it matched. */
  paper_model: string;
  cells: PublishedCell[];
}

const lower = (s: string) => s.toLowerCase();

/** The paper model a results folder stands for: through the name map, else by its own name (any case). */
export function paperModelFor(names: string[], map: PaperNameMap, paperModels: string[]): string | null {
  const byMap = new Map(Object.entries(map.names).map(([k, v]) => [lower(k), v]));
  const byPaper = new Map(paperModels.map((m) => [lower(m), m]));
  for (const n of names) {
    const mapped = byMap.get(lower(n));
    if (mapped !== undefined) return byPaper.get(lower(mapped)) ?? mapped;
    const own = byPaper.get(lower(n));
    if (own !== undefined) return own;
  }
  return null;
}

function cell(column: string, oursName: string, published: number, c: Cell | null, note?: string): PublishedCell {
  const pct = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? 100 * v : null);
  const ours = pct(c?.value);
  const [low, high] = [pct(c?.ci?.low), pct(c?.ci?.high)];
  return {
    column,
    ours_name: oursName,
    ours,
    low,
    high,
    published,
    difference: ours === null ? null : ours - published,
    inside: low === null || high === null ? null : published >= low && published <= high,
    ...(note ? { note } : {}),
  };
}

const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;

/**
 * Every paper row a results folder matches, as Table 1 (TG CircularEval per split and the Total
 * Average, the plain mean of the six splits as the paper computes it), Table 2 (G-Score per split and
 * role, and the Avg G-Score, the plain mean of the ten columns) and Table 3 (DAP on Subset B's
 * front/behind items, without and with the hint). Intervals: the report's bootstrap over items
 * (within splits for the averages); Table 3: Wilson intervals of the item shares.
 */
export function comparePublished(results: ModelResults[], paper: PaperTables, map: PaperNameMap, o: StatOptions): PublishedComparison[] {
  const out: PublishedComparison[] = [];
  const reasoning = buildReasoningTable(results, o);
  const grounding = buildGroundingTable(results, o);
  const dap = buildDapTable(results);
  const find = (rows: PaperRow[], model: string) => rows.find((r) => r.model === model);
  const allPaperModels = [...new Set([...paper.table1, ...paper.table2, ...paper.table3].map((r) => r.model))];
  for (const r of results) {
    const folder = r.dir.split(/[\\/]/).filter(Boolean).pop() ?? r.model;
    const paperModel = paperModelFor([r.model, folder], map, allPaperModels);
    if (paperModel === null) continue;
    const t1 = find(paper.table1, paperModel);
    const ours1 = reasoning.rows.find((x) => x.model === r.model);
    if (t1 && ours1) {
      const cells = TABLE1_SPLITS.filter(([col]) => col in t1.values).map(([col, split]) => cell(col, split, t1.values[col], ours1.cells[split]?.circular ?? null, ours1.cells[split] ? undefined : 'split not in the results'));
      if ('total_average' in t1.values) {
        const six = TABLE1_SPLITS.map(([, s]) => ours1.cells[s]?.circular.value);
        const complete = six.every((v) => typeof v === 'number');
        const total: Cell = complete ? { value: mean(six as number[]), ci: ours1.total.circular.ci } : { value: null, ci: null };
        out.push({ table: 'Table 1', model: r.model, paper_model: paperModel, cells: [...cells, cell('total_average', 'total', t1.values.total_average, total, complete ? undefined : 'needs all six splits')] });
      } else out.push({ table: 'Table 1', model: r.model, paper_model: paperModel, cells });
    }
    const t2 = find(paper.table2, paperModel);
    const ours2 = grounding.rows.find((x) => x.model === r.model);
    if (t2 && ours2) {
      const cells = TABLE2_COLUMNS.filter(([col]) => col in t2.values).map(([col, c]) => cell(col, c, t2.values[col], ours2.cells[c] ?? null, ours2.cells[c] ? undefined : 'column not in the results'));
      if ('avg_gscore' in t2.values) {
        const ten = TABLE2_COLUMNS.map(([, c]) => ours2.cells[c]?.value);
        const complete = ten.every((v) => typeof v === 'number');
        const avg: Cell = complete ? { value: mean(ten as number[]), ci: ours2.avg.ci } : { value: null, ci: null };
        const a = ours2.answers;
        const unparsed = a.unparsed + a.missing > 0 ? `${a.unparsed} of ${a.objects} answers unparsed, ${a.missing} missing` : undefined;
        cells.push(cell('avg_gscore', 'avg', t2.values.avg_gscore, avg, complete ? unparsed : 'needs all ten columns'));
      }
      out.push({ table: 'Table 2', model: r.model, paper_model: paperModel, cells });
    }
    const t3 = find(paper.table3, paperModel);
    const rows = dap.filter((d) => d.model === r.model && d.split === 'whatsup-b');
    const row = rows.find((d) => d.subset === 'front/behind') ?? rows.find((d) => d.subset === 'all');
    if (t3 && row) {
      const share = (v: number): Cell => {
        const w = wilsonInterval(Math.round(v * row.n), row.n);
        return { value: v, ci: { estimate: v, low: w.low, high: w.high, level: 0.95, resamples: 0, seed: 0, n: row.n } };
      };
      const note = row.subset === 'all' ? 'all DAP items of Subset B' : 'front/behind items of Subset B';
      const cells = [cell('without_depth', 'nodap', t3.values.without_depth, share(row.without), note), cell('with_depth', 'dap', t3.values.with_depth, share(row.with), note)];
      out.push({ table: 'Table 3', model: r.model, paper_model: paperModel, cells });
    }
  }
  return out;
}

/** The comparisons as plain-text tables, one per paper table and model. */
export function formatPublished(list: PublishedComparison[]): string {
  if (list.length === 0) return 'No results folder matches a model of the GSR-Bench paper (see data/paper/paper-models.json).';
  const f = (v: number | null) => (v === null ? '-' : v.toFixed(1));
  const blocks = list.map((c) => {
    const head = `${c.table}: ${c.model} as the paper's ${c.paper_model} (%, ours with 95% interval)`;
    const lines = c.cells.map((x) => {
      const ci = x.low === null ? '' : ` [${f(x.low)}, ${f(x.high)}]`;
      const inside = x.inside === null ? '' : x.inside ? '  inside' : '  outside';
      return `  ${x.column.padEnd(18)} ours ${`${f(x.ours)}${ci}`.padEnd(20)} published ${f(x.published).padStart(5)}  diff ${x.difference === null ? '-' : (x.difference >= 0 ? '+' : '') + x.difference.toFixed(1)}${inside}${x.note ? `  (${x.note})` : ''}`;
    });
    return [head, ...lines].join('\n');
  });
  return blocks.join('\n\n');
}
