/**
 * The paper's Figure 4 from its own published numbers: Subset A TG CircularEval (Table 1) regressed on
 * Subset A subject G-Score (Table 2) across the 8 models that have both rows, then every leave-one-out
 * subset, and which fit gives the published slope 6.025 and p = 0.007 within the tables' rounding
 * (values printed with one decimal may be off by up to 0.05).
 *
 *   npx tsx notebooks/paper-regression.ts [--out DIR]      (default DIR: notebooks/out)
 *
 * Same numbers from the CLI:
 *   gsr analyze regression --data data/paper/table1_tg_circular.csv --data data/paper/table2_gscore.csv \
 *     --y subset_a --x a_subject --influence --rounding 0.05
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatInfluence, formatSummary, leaveOneOut, regress, roundingSensitivity, tableFromCsvs, withoutRow } from '../src/analysis/index.js';
import { writeRegressionPlot } from '../src/report/index.js';

const PUBLISHED = { slope: 6.025, p: 0.007 };
const HALF_UNIT = 0.05;
const args = process.argv.slice(2);
const outDir = args.includes('--out') ? args[args.indexOf('--out') + 1] : 'notebooks/out';
const files = ['data/paper/table1_tg_circular.csv', 'data/paper/table2_gscore.csv'].map((source) => ({ source, text: readFileSync(source, 'utf8') }));
const table = tableFromCsvs(files, 'subset_a', ['a_subject'], 'model');

const full = regress(table);
console.log(`Fit with all ${table.labels.length} models that have a Table 1 and a Table 2 row:\n${formatSummary(full)}\n`);

const infl = leaveOneOut(table);
const rows = infl.rows.map((r, i) => ({ ...r, rounding: roundingSensitivity(table.x[0].values.filter((_, j) => j !== i), table.y.values.filter((_, j) => j !== i), HALF_UNIT, PUBLISHED.slope) }));
console.log(formatInfluence({ coefficient: infl.coefficient, rows }));

// A fit matches when values within the rounding give exactly the published slope and, there, a p that
// prints as the published one (three decimals).
const matches = rows.filter((r) => r.rounding.at_target && r.rounding.at_target.p.toFixed(3) === PUBLISHED.p.toFixed(3));
console.log(`\nPublished: slope ${PUBLISHED.slope}, p = ${PUBLISHED.p}.`);
if (matches.length === 0) console.log('No leave-one-out fit reaches it within the rounding.');
for (const m of matches) {
  const t = m.rounding.at_target!;
  console.log(
    `Matches: the fit without ${m.label} (7 models): slope ${m.slope.toFixed(3)}, p = ${m.p.toFixed(4)} from the printed values; ` +
      `moving each value by at most ${t.max_change.toFixed(3)} (within the ±${HALF_UNIT} rounding) gives slope ${t.slope.toFixed(3)} with p = ${t.p.toFixed(4)}.`,
  );
}
const fullCheck = roundingSensitivity(table.x[0].values, table.y.values, HALF_UNIT, PUBLISHED.slope);
console.log(`The fit with all 8 models does ${fullCheck.at_target ? '' : 'not '}reach it (slope range [${fullCheck.slope.low.toFixed(3)}, ${fullCheck.slope.high.toFixed(3)}]).`);

const allPath = join(outDir, 'paper-figure4-all-8.svg');
await writeRegressionPlot(full, table, allPath);
console.log(`\nwrote ${allPath}`);
for (const m of matches) {
  const sub = withoutRow(table, table.labels.indexOf(m.label));
  const path = join(outDir, `paper-figure4-without-${m.label.replace(/[^A-Za-z0-9.-]+/g, '_')}.svg`);
  await writeRegressionPlot(regress(sub), sub, path);
  console.log(`wrote ${path}`);
}
