/**
 * Rebuilds the paper-style tables and the regression figure from results folders.
 *
 *   npx tsx notebooks/paper-tables.ts [--out DIR] RESULTS_DIR...
 *
 * Table 1: CircularEval / VanillaEval per split and Total Average (with 95% bootstrap CIs).
 * Table 2: G-Score per split/role and Avg G-Score (with CIs).
 * Table 3: DAP with and without the depth hint on the same items, exact McNemar p.
 * Figure 4: Subset A TG CircularEval accuracy on Subset A subject G-Score across models, fit and band.
 * (Table 3 / Figure 4 follow this project's reading of the paper's numbering.)
 * Prints the tables as Markdown and writes table1.csv, table2.csv, table3.csv, figure4.svg to DIR.
 */
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import {
  buildDapTable,
  buildGroundingTable,
  buildReasoningTable,
  fitTable,
  formatSummary,
  loadAllResults,
  loadRegressionTable,
  type Cell,
} from '../src/analysis/index.js';
import { writeRegressionPlot } from '../src/report/index.js';
import { writeFileAtomic } from '../src/util/fs.js';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const outDir = outAt >= 0 ? args[outAt + 1] : 'notebooks/out';
const dirs = args.filter((_, i) => i !== outAt && i !== outAt + 1);
if (dirs.length === 0) {
  console.error('usage: npx tsx notebooks/paper-tables.ts [--out DIR] RESULTS_DIR...');
  process.exit(2);
}

const pct = (v: number | null) => (v === null ? '' : (100 * v).toFixed(1));
const withCi = (c: Cell) => (c.value === null ? '—' : `${pct(c.value)}${c.ci ? ` [${pct(c.ci.low)}, ${pct(c.ci.high)}]` : ''}`);
const markdown = (header: string[], rows: string[][]) =>
  [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');

async function emit(name: string, title: string, header: string[], rows: string[][], csvRows: (string | number | null)[][]) {
  console.log(`\n## ${title}\n\n${markdown(header, rows)}`);
  await writeFileAtomic(join(outDir, `${name}.csv`), stringify([header, ...csvRows]));
}

const results = await loadAllResults(dirs);
const stat = { seed: 0, resamples: 2000 };

const t1 = buildReasoningTable(results, stat);
const t1Cols = [...t1.splits, 'total'];
await emit(
  'table1',
  'Table 1: CircularEval / VanillaEval accuracy (%)',
  ['model', ...t1Cols.flatMap((s) => [`${s} circular`, `${s} vanilla`])],
  t1.rows.map((r) => [r.model, ...t1Cols.flatMap((s) => { const c = s === 'total' ? r.total : r.cells[s]; return [withCi(c.circular), withCi(c.vanilla)]; })]),
  t1.rows.map((r) => [r.model, ...t1Cols.flatMap((s) => { const c = s === 'total' ? r.total : r.cells[s]; return [c.circular.value, c.vanilla.value]; })]),
);

const t2 = buildGroundingTable(results, stat);
await emit(
  'table2',
  'Table 2: G-Score (%)',
  ['model', ...t2.columns, 'avg'],
  t2.rows.map((r) => [r.model, ...t2.columns.map((c) => withCi(r.cells[c])), withCi(r.avg)]),
  t2.rows.map((r) => [r.model, ...t2.columns.map((c) => r.cells[c].value), r.avg.value]),
);

const t3 = buildDapTable(results);
const t3Header = ['model', 'split', 'items', 'n', 'circular without', 'circular with DAP', 'McNemar p'];
const t3Rows = t3.map((r) => [r.model, r.split, r.subset, String(r.n), pct(r.without), pct(r.with), r.mcnemar.p.toPrecision(4)]);
await emit('table3', 'Table 3: depth-augmented prompting (CircularEval, %)', t3Header, t3Rows, t3Rows);

const { table } = await loadRegressionTable({ results: dirs });
if (table.labels.length >= 3) {
  const fit = fitTable(table, 'results');
  await writeRegressionPlot(fit, table, join(outDir, 'figure4.svg'));
  console.log(`\n## Figure 4: grounding vs reasoning\n\n\`\`\`\n${formatSummary(fit)}\n\`\`\`\nwrote ${join(outDir, 'figure4.svg')}`);
} else {
  console.log(`\n## Figure 4: needs 3 models with both metrics, have ${table.labels.length}`);
}
