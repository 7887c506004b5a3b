/**
 * What'sUp's own metrics (individual, pair and set accuracy, preposition confusion) read from results
 * folders, beside CircularEval and beside the What'sUp rows of the GSR-Bench paper's Table 1. Pure:
 * loaded results and tables in, rows and text out.
 */
import { orderSplits } from '../formats/manifest.js';
import type { PaperTables } from '../formats/paper.js';
import { WhatsupSummarySchema, type WhatsupSummary } from '../formats/results.js';
import type { ModelResults } from './results-types.js';

/** One model's What'sUp metrics on one controlled split. */
export interface WhatsupRow {
  model: string;
  split: string;
  /** CircularEval accuracy of the split, from the same reasoning.json. */
  circular_eval: number | null;
  metrics: WhatsupSummary;
}

export interface WhatsupTable {
  rows: WhatsupRow[];
  /** Models with a controlled split but no What'sUp metrics (scored before they existed): re-score them. */
  missing: Array<{ model: string; split: string }>;
  /** Unreadable `whatsup` entries, naming the file. */
  warnings: string[];
}

const CONTROLLED = ['whatsup-a', 'whatsup-b'];

/** The What'sUp metrics of each model's own reasoning.json (the model folder, not its variants). */
export function buildWhatsupTable(results: ModelResults[]): WhatsupTable {
  const table: WhatsupTable = { rows: [], missing: [], warnings: [] };
  for (const r of results) {
    const summary = r.reasoning.find((v) => v.variant === '')?.summary;
    if (!summary) continue;
    const stored = (summary.whatsup ?? {}) as Record<string, unknown>;
    for (const split of orderSplits(Object.keys(summary.splits)).filter((s) => CONTROLLED.includes(s))) {
      if (!(split in stored)) {
        table.missing.push({ model: r.model, split });
        continue;
      }
      const parsed = WhatsupSummarySchema.safeParse(stored[split]);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        table.warnings.push(`${r.dir}/reasoning.json: whatsup.${split}.${issue.path.join('.')}: ${issue.message}`);
        continue;
      }
      const circular = summary.splits[split]?.circular;
      table.rows.push({ model: r.model, split, circular_eval: typeof circular === 'number' ? circular : null, metrics: parsed.data });
    }
  }
  return table;
}

/** Table 1's column of each controlled split. */
const PAPER_COLUMN: Record<string, string> = { 'whatsup-a': 'subset_a', 'whatsup-b': 'subset_b' };

/** Our individual accuracy beside the models What'sUp reported on one subset (GSR-Bench Table 1, `source` = whatsup). */
export interface WhatsupPublished {
  split: string;
  /** The paper's column. */
  column: string;
  /** What'sUp's models, best first: individual accuracy, %. */
  published: Array<{ model: string; value: number }>;
  chance: number | null;
  /** Ours, %: single-pass individual accuracy (mean over the passes), and how many published rows it beats. */
  ours: Array<{ model: string; individual: number | null; pair: number | null; set: number | null; above: number }>;
}

/** Our What'sUp metrics among the What'sUp rows of Table 1, one block per controlled split we have. */
export function whatsupBesidePublished(rows: WhatsupRow[], paper: PaperTables): WhatsupPublished[] {
  const out: WhatsupPublished[] = [];
  const pct = (v: number | null) => (v === null ? null : 100 * v);
  for (const split of CONTROLLED) {
    const ours = rows.filter((r) => r.split === split);
    const column = PAPER_COLUMN[split];
    const published = paper.table1
      .filter((p) => p.source === 'whatsup' && typeof p.values[column] === 'number')
      .map((p) => ({ model: p.model, value: p.values[column] }))
      .sort((a, b) => b.value - a.value);
    if (ours.length === 0 || published.length === 0) continue;
    const chance = paper.table1.find((p) => p.source === 'chance')?.values[column] ?? null;
    out.push({
      split,
      column,
      published,
      chance,
      ours: ours.map((r) => {
        const individual = pct(r.metrics.individual);
        return { model: r.model, individual, pair: pct(r.metrics.pair), set: pct(r.metrics.set), above: individual === null ? 0 : published.filter((p) => p.value < individual).length };
      }),
    });
  }
  return out;
}

const f = (v: number | null) => (v === null ? '-' : (100 * v).toFixed(1));

/** The table as text: one line per model and split, then each confusion table. */
export function formatWhatsupTable(t: WhatsupTable): string {
  const lines: string[] = [];
  if (t.rows.length > 0) {
    lines.push('model\tsplit\tpasses\tCircularEval\tindividual\tpair\tset\tcirc. individual\tcirc. pair\tcirc. set\tunparsed');
    for (const r of t.rows) {
      const m = r.metrics;
      lines.push([r.model, r.split, m.passes, f(r.circular_eval), f(m.individual), f(m.pair), f(m.set), f(m.circular.individual), f(m.circular.pair), f(m.circular.set), m.unparsed ?? '-'].join('\t'));
    }
    for (const r of t.rows) {
      const c = r.metrics.confusion;
      if (!c) continue;
      const words = r.metrics.subset === 'A' ? ['on', 'under', 'left', 'right'] : ['front', 'behind', 'left', 'right'];
      lines.push('', `${r.model} ${r.split}: correct (rows) vs chosen (columns), summed over ${r.metrics.passes} pass(es)`, ['', ...words, 'none'].join('\t'));
      for (const g of words) lines.push([g, ...[...words, 'none'].map((w) => c[g]?.[w] ?? 0)].join('\t'));
    }
  }
  for (const m of t.missing) lines.push(`${m.model} ${m.split}: no What'sUp metrics in reasoning.json (scored by an older version): score it again`);
  return lines.length > 0 ? lines.join('\n') : 'No Controlled A or B results.';
}

/** The beside-published blocks as text. */
export function formatWhatsupPublished(list: WhatsupPublished[]): string {
  return list
    .map((b) => {
      const head = `What'sUp ${b.split} (Table 1 ${b.column}, the ${b.published.length} models What'sUp reported; individual accuracy, %)`;
      const ours = b.ours.map((o) => `  ours ${o.model}: individual ${o.individual === null ? '-' : o.individual.toFixed(1)} (above ${o.above} of ${b.published.length}), pair ${o.pair === null ? '-' : o.pair.toFixed(1)}, set ${o.set === null ? '-' : o.set.toFixed(1)}`);
      const range = `  published: ${b.published[0].model} ${b.published[0].value.toFixed(1)} best, ${b.published[b.published.length - 1].model} ${b.published[b.published.length - 1].value.toFixed(1)} worst${b.chance === null ? '' : `; chance ${b.chance.toFixed(1)}`}`;
      return [head, ...ours, range].join('\n');
    })
    .join('\n\n');
}
