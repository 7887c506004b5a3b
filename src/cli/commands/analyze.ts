import type { Command } from 'commander';
import { GsrError } from '../../util/errors.js';
import { writeJsonAtomic } from '../../util/fs.js';
import { notice } from '../../util/log.js';
import { action, parseNumber, parsePositiveInt, printJson } from '../action.js';

interface RegressionOptions {
  data?: string[];
  results?: string[];
  y?: string;
  x?: string[];
  label?: string;
  json?: boolean;
  plot?: string;
  out?: string;
  influence?: boolean;
  rounding?: number;
}

const collect = (value: string, prev: string[] = []) => [...prev, value];

// The statistics and plotting libraries take seconds to load; load them only when a command runs.
const analysisLib = () => import('../../analysis/index.js');
const regressionLib = () => import('../../report/regression-output.js');

export function registerAnalyze(program: Command): void {
  const analyze = program.command('analyze').description('Statistics across models: regression with p-values, CIs, paired tests, power');
  analyze
    .command('regression')
    .description('OLS of one metric on others across models, from CSVs or from results folders')
    .option('--data <file.csv>', 'CSV with one row per model (repeatable: files are joined on --label)', collect)
    .option('--results <dir...>', 'results folders, one per model')
    .option('--y <col>', 'response: a CSV column (FILE_STEM:col when several files have it), or a metric such as reasoning:whatsup-a:circular (default for --results)')
    .option('--x <col>', 'regressor (repeatable): a CSV column, or a metric such as grounding:whatsup-a/subject', collect)
    .option('--label <col>', 'CSV column naming each row (default: first other column; with several files, the first file\'s first column)')
    .option('--influence', 'leave-one-out table: slope and p without each model, and its Cook\'s distance')
    .option('--rounding <half-unit>', 'slope and p ranges when every value may be off by this much (0.05 for one printed decimal)', parseNumber('--rounding'))
    .option('--json', 'print only JSON on stdout')
    .option('--plot <file>', 'write the scatter with fitted line and 95% band (.svg or .png)')
    .option('--out <file>', 'also write the JSON result to this file')
    .action(
      action(async (o: RegressionOptions) => {
        const { formatSummary, formatInfluence, formatRounding, leaveOneOut, roundingSensitivity, withoutRow } = await analysisLib();
        const { fitTable, loadRegressionTable, writeRegressionPlot } = await regressionLib();
        const { table, source, warnings } = await loadRegressionTable(o);
        for (const w of warnings) notice(`warning: ${w}`);
        const fit = fitTable(table, source);
        const result: Record<string, unknown> = { ...fit };
        const rounding = (t: typeof table) => (o.rounding === undefined ? undefined : roundingSensitivity(t.x[0].values, t.y.values, o.rounding));
        if (o.rounding !== undefined) {
          if (table.x.length !== 1) throw new GsrError('--rounding needs exactly one --x');
          if (!(o.rounding > 0)) throw new GsrError('--rounding must be positive');
          result.rounding = rounding(table);
        }
        if (o.influence) {
          try {
            const infl = leaveOneOut(table);
            result.influence = {
              coefficient: infl.coefficient,
              rows: infl.rows.map((r, i) => ({ ...r, ...(o.rounding !== undefined ? { rounding: rounding(withoutRow(table, i)) } : {}) })),
            };
          } catch (err) {
            throw new GsrError(`${source}: ${(err as Error).message}`);
          }
        }
        if (o.plot) await writeRegressionPlot(fit, table, o.plot);
        if (o.out) await writeJsonAtomic(o.out, result);
        if (o.json) {
          printJson(result);
          return;
        }
        process.stdout.write(formatSummary(fit) + '\n');
        if (result.rounding) process.stdout.write(formatRounding('all rows', result.rounding as never) + '\n');
        if (result.influence) process.stdout.write('\n' + formatInfluence(result.influence as never) + '\n');
        if (o.plot) notice(`wrote ${o.plot}`);
      }),
    );

  analyze
    .command('correlation')
    .description('Pearson and Spearman correlation (with p-values) of two metrics across models')
    .option('--data <file.csv>', 'CSV with one row per model (repeatable: files are joined on --label)', collect)
    .option('--results <dir...>', 'results folders, one per model')
    .requiredOption('--y <col>', 'first variable: a CSV column or a results metric')
    .requiredOption('--x <col>', 'second variable: a CSV column or a results metric')
    .option('--label <col>', 'CSV column naming each row')
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { data?: string[]; results?: string[]; y: string; x: string; label?: string; json?: boolean }) => {
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
