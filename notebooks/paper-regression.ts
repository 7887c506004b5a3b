/**
 * The paper's causal-effect analysis from its own published numbers: regress Subset A TG CircularEval
 * accuracy on Subset A subject G-Score across models, and search for the model subset that reproduces
 * the published slope 6.025 and p = 0.007.
 *
 *   npx tsx notebooks/paper-regression.ts [--data data/paper/gsr-bench-tables.csv] [--out DIR]
 *
 * The CSV needs columns `model`, `subset_a_tg_circular`, `subset_a_subject_gscore` (one row per model,
 * values as printed in the paper's Tables 1 and 2). See data/paper/README.md for why it is not shipped yet.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findMatchingSubsets, formatSummary, regress, tableFromCsv } from '../src/analysis/index.js';
import { writeRegressionPlot } from '../src/report/index.js';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const data = opt('--data', 'data/paper/gsr-bench-tables.csv');
const outDir = opt('--out', 'notebooks/out');
if (!existsSync(data)) {
  console.error(`${data} not found: the paper's Tables 1 and 2 are not shipped (see data/paper/README.md).`);
  process.exit(2);
}
const table = tableFromCsv(readFileSync(data, 'utf8'), 'subset_a_tg_circular', ['subset_a_subject_gscore'], 'model', data);
const subsets = findMatchingSubsets(table, { slope: 6.025, p: 0.007, decimals: 3 });
console.log(`All ${table.labels.length} models:\n${formatSummary(regress(table))}\n`);
console.log(`${subsets.length} subset(s) give slope 6.025 and p 0.007 at three decimals.`);
for (const s of subsets) {
  const sub = { ...table, labels: s, y: { ...table.y, values: s.map((l) => table.y.values[table.labels.indexOf(l)]) }, x: [{ ...table.x[0], values: s.map((l) => table.x[0].values[table.labels.indexOf(l)]) }] };
  const fit = regress(sub);
  console.log(`\n${formatSummary(fit)}`);
  if (s === subsets[0]) {
    await writeRegressionPlot(fit, sub, join(outDir, 'paper-regression.svg'));
    console.log(`wrote ${join(outDir, 'paper-regression.svg')}`);
  }
}
