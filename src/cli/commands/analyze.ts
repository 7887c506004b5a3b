import type { Command } from 'commander';
import { GsrError } from '../../util/errors.js';
import { writeJsonAtomic } from '../../util/fs.js';
import { notice } from '../../util/log.js';
import { action, parseNumber, parsePositiveInt, printJson } from '../action.js';

interface RegressionOptions {
  data?: string;
  results?: string[];
  y?: string;
  x?: string[];
  label?: string;
  json?: boolean;
  plot?: string;
  out?: string;
  findSubset?: boolean;
  targetSlope?: number;
  targetP?: number;
  decimals?: number;
  minSize?: number;
}

const collect = (value: string, prev: string[] = []) => [...prev, value];

// The statistics and plotting libraries take seconds to load; load them only when a command runs.
const analysisLib = () => import('../../analysis/index.js');
const regressionLib = () => import('../../report/regression-output.js');

export function registerAnalyze(program: Command): void {
  const analyze = program.command('analyze').description('Statistics across models: regression with p-values, CIs, paired tests');
  analyze
    .command('regression')
    .description('OLS of one metric on others across models, from a CSV or from results folders')
    .option('--data <file.csv>', 'CSV with one row per model')
    .option('--results <dir...>', 'results folders, one per model')
    .option('--y <col>', 'response: a CSV column, or a metric such as reasoning:whatsup-a:circular (default for --results)')
    .option('--x <col>', 'regressor (repeatable): a CSV column, or a metric such as grounding:whatsup-a/subject', collect)
    .option('--label <col>', 'CSV column naming each row (default: first other column)')
    .option('--json', 'print only JSON on stdout')
    .option('--plot <file>', 'write the scatter with fitted line and 95% band (.svg or .png)')
    .option('--out <file>', 'also write the JSON result to this file')
    .option('--find-subset', 'list the model subsets whose fit rounds to --target-slope and --target-p')
    .option('--target-slope <v>', 'published slope to match', parseNumber('--target-slope'))
    .option('--target-p <v>', 'published p-value to match', parseNumber('--target-p'))
    .option('--decimals <n>', 'decimals the targets were published with (default 3)', parsePositiveInt('--decimals'))
    .option('--min-size <n>', 'smallest subset to try (default 3)', parsePositiveInt('--min-size'))
    .action(
      action(async (o: RegressionOptions) => {
        const { findMatchingSubsets, formatSummary } = await analysisLib();
        const { fitTable, loadRegressionTable, writeRegressionPlot } = await regressionLib();
        const { table, source, warnings } = await loadRegressionTable(o);
        for (const w of warnings) notice(`warning: ${w}`);
        const fit = fitTable(table, source);
        const result: Record<string, unknown> = { ...fit };
        if (o.findSubset) {
          if (o.targetSlope === undefined || o.targetP === undefined) throw new GsrError('--find-subset needs --target-slope and --target-p');
          try {
            result.matching_subsets = findMatchingSubsets(table, { slope: o.targetSlope, p: o.targetP, decimals: o.decimals, minSize: o.minSize });
          } catch (err) {
            throw new GsrError((err as Error).message);
          }
        }
        if (o.plot) await writeRegressionPlot(fit, table, o.plot);
        if (o.out) await writeJsonAtomic(o.out, result);
        if (o.json) {
          printJson(result);
          return;
        }
        process.stdout.write(formatSummary(fit) + '\n');
        if (o.findSubset) {
          const subsets = result.matching_subsets as string[][];
          process.stdout.write(`\nSubsets matching slope ${o.targetSlope} / p ${o.targetP}: ${subsets.length}\n`);
          for (const s of subsets.slice(0, 20)) process.stdout.write(`  (${s.length}) ${s.join(', ')}\n`);
        }
        if (o.plot) notice(`wrote ${o.plot}`);
      }),
    );

  analyze
    .command('correlation')
    .description('Pearson and Spearman correlation (with p-values) of two metrics across models')
    .option('--data <file.csv>', 'CSV with one row per model')
    .option('--results <dir...>', 'results folders, one per model')
    .requiredOption('--y <col>', 'first variable: a CSV column or a results metric')
    .requiredOption('--x <col>', 'second variable: a CSV column or a results metric')
    .option('--label <col>', 'CSV column naming each row')
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { data?: string; results?: string[]; y: string; x: string; label?: string; json?: boolean }) => {
        const { pearson, spearman } = await analysisLib();
        const { loadRegressionTable } = await regressionLib();
        const { table, source, warnings } = await loadRegressionTable({ ...o, x: [o.x] });
        for (const w of warnings) notice(`warning: ${w}`);
        const [xs, ys] = [table.x[0].values, table.y.values];
        let result;
        try {
          result = { n: xs.length, x: o.x, y: o.y, pearson: pearson(xs, ys), spearman: spearman(xs, ys), labels: table.labels, skipped: table.skipped };
        } catch (err) {
          throw new GsrError(`${source}: ${(err as Error).message}`);
        }
        if (o.json) return printJson(result);
        process.stdout.write(`${o.y} vs ${o.x} (n = ${result.n})\n`);
        process.stdout.write(`Pearson r = ${result.pearson.r.toFixed(4)}, p = ${result.pearson.p.toPrecision(4)}\n`);
        process.stdout.write(`Spearman rho = ${result.spearman.r.toFixed(4)}, p = ${result.spearman.p.toPrecision(4)}\n`);
      }),
    );

  analyze
    .command('dap')
    .description('CircularEval with and without the depth hint on the same items, exact McNemar test')
    .requiredOption('--results <dir...>', 'results folders with dap/ (and nodap/) subfolders')
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { results: string[]; json?: boolean }) => {
        const { loadAllResults } = await import('../../report/load-results.js');
        const { buildDapTable } = await import('../../report/summary.js');
        const results = await loadAllResults(o.results);
        for (const r of results) for (const w of r.warnings) notice(`warning: ${w}`);
        const rows = buildDapTable(results);
        if (o.json) return printJson(rows);
        if (rows.length === 0) throw new GsrError('no DAP results: a results folder needs a dap/ subfolder with reasoning-items.jsonl');
        process.stdout.write('model\tsplit\titems\tn\twithout\twith\tonly_with\tonly_without\tmcnemar_p\n');
        for (const r of rows) {
          process.stdout.write(`${r.model}\t${r.split}\t${r.subset}\t${r.n}\t${r.without.toFixed(4)}\t${r.with.toFixed(4)}\t${r.mcnemar.b}\t${r.mcnemar.c}\t${r.mcnemar.p.toPrecision(4)}\n`);
        }
      }),
    );
}
