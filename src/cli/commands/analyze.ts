import type { Command } from 'commander';
import { GsrError } from '../../util/errors.js';
import { writeJsonAtomic } from '../../util/fs.js';
import { notice } from '../../util/log.js';
import { action, printJson } from '../action.js';
import { collect, parseNumber, parsePositiveInt, parseSeed } from '../parsers.js';
import { formatP } from '../../util/stats.js';

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

// The statistics libraries take a while to load; load them only when a command runs (and the
// renderer only for --plot).
const analysisLib = () => import('../../analysis/index.js');

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
    .option('--rounding <half-unit>', 'slope and p ranges when every value may be off by this much (0.05 for one printed decimal)', parseNumber)
    .option('--json', 'print only JSON on stdout')
    .option('--plot <file>', 'write the scatter with fitted line and 95% band (.svg or .png)')
    .option('--out <file>', 'also write the JSON result to this file')
    .action(
      action(async (o: RegressionOptions) => {
        const { formatSummary, formatInfluence, formatRounding, leaveOneOut, roundingSensitivity, withoutRow, fitTable, loadRegressionTable } = await analysisLib();
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
        if (o.plot) {
          const { writeRegressionPlot } = await import('../../report/regression-plot.js');
          await writeRegressionPlot(fit, table, o.plot);
        }
        if (o.out) await writeJsonAtomic(o.out, result);
        if (o.json) {
          printJson(result);
          return;
        }
        process.stdout.write(formatSummary(fit) + '\n');
        if (result.rounding) process.stdout.write(formatRounding('all rows', result.rounding as never) + '\n');
        if (result.influence) process.stdout.write('\n' + formatInfluence(result.influence as never) + '\n');
        if (o.plot) notice(`wrote ${o.plot}`);
      }, (o) => ({ files: [o.out, o.plot] })),
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
        const { pearson, spearman, loadRegressionTable } = await analysisLib();
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
        process.stdout.write(`Pearson r = ${result.pearson.r.toFixed(4)}, p = ${formatP(result.pearson.p)}\n`);
        process.stdout.write(`Spearman rho = ${result.spearman.r.toFixed(4)}, p = ${formatP(result.spearman.p)}\n`);
      }),
    );

  analyze
    .command('dap')
    .description('CircularEval with and without the depth hint on the same items, exact McNemar test')
    .requiredOption('--results <dir...>', 'results folders with dap/ (and nodap/) subfolders')
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { results: string[]; json?: boolean }) => {
        const { loadAllResults, buildDapTable } = await analysisLib();
        const results = await loadAllResults(o.results);
        for (const r of results) for (const w of r.warnings) notice(`warning: ${w}`);
        const rows = buildDapTable(results);
        if (o.json) return printJson(rows);
        if (rows.length === 0) throw new GsrError('no DAP results: a results folder needs a dap/ subfolder with reasoning-items.jsonl');
        process.stdout.write('model\tsplit\titems\tn\twithout\twith\tonly_with\tonly_without\tmcnemar_p\n');
        for (const r of rows) {
          process.stdout.write(`${r.model}\t${r.split}\t${r.subset}\t${r.n}\t${r.without.toFixed(4)}\t${r.with.toFixed(4)}\t${r.mcnemar.b}\t${r.mcnemar.c}\t${formatP(r.mcnemar.p)}\n`);
        }
      }),
    );

  analyze
    .command('published')
    .description("our values beside the GSR-Bench paper's Tables 1-3 for results folders that match a paper model (and What'sUp's metrics beside its Table 1 rows)")
    .requiredOption('--results <dir...>', 'results folders, one per model')
    .option('--paper-names <file>', "name map from results-folder model names to the paper's (default data/paper/paper-models.json)")
    .option('--seed <n>', 'bootstrap seed (default 0)', parseSeed)
    .option('--resamples <n>', 'bootstrap resamples (default 2000)', parsePositiveInt)
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { results: string[]; paperNames?: string; seed?: number; resamples?: number; json?: boolean }) => {
        const { comparePublished, formatPublished, loadAllResults, buildWhatsupTable, whatsupBesidePublished, formatWhatsupPublished } = await analysisLib();
        const { readPaperNameMap, readPaperTables } = await import('../../formats/paper.js');
        const results = await loadAllResults(o.results);
        for (const r of results) for (const w of r.warnings) notice(`warning: ${w}`);
        const paper = await readPaperTables();
        const list = comparePublished(results, paper, await readPaperNameMap(o.paperNames), { seed: o.seed ?? 0, resamples: o.resamples ?? 2000 });
        if (o.json) return printJson(list);
        process.stdout.write(formatPublished(list) + '\n');
        const whatsup = whatsupBesidePublished(buildWhatsupTable(results).rows, paper);
        if (whatsup.length > 0) process.stdout.write('\n' + formatWhatsupPublished(whatsup) + '\n');
      }),
    );

  analyze
    .command('whatsup')
    .description("What'sUp's own metrics on Controlled A and B: individual, pair and set accuracy and the preposition confusion counts, beside CircularEval")
    .requiredOption('--results <dir...>', 'results folders, one per model')
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { results: string[]; json?: boolean }) => {
        const { loadAllResults, buildWhatsupTable, formatWhatsupTable, whatsupBesidePublished, formatWhatsupPublished } = await analysisLib();
        const { readPaperTables } = await import('../../formats/paper.js');
        const results = await loadAllResults(o.results);
        for (const r of results) for (const w of r.warnings) notice(`warning: ${w}`);
        const table = buildWhatsupTable(results);
        for (const w of table.warnings) notice(`warning: ${w}`);
        const published = whatsupBesidePublished(table.rows, await readPaperTables());
        if (o.json) return printJson({ ...table, published });
        process.stdout.write(formatWhatsupTable(table) + '\n');
        if (published.length > 0) process.stdout.write('\n' + formatWhatsupPublished(published) + '\n');
      }),
    );

  analyze
    .command('power')
    .description('Monte-Carlo power and false-positive rate of the cross-model regression (p < alpha)')
    .option('--models <k>', 'number of models (with --grounding LOW:HIGH: evenly spaced)', parsePositiveInt)
    .option('--grounding <low:high|v1,v2,...>', "the models' true grounding, %: a range spread evenly over --models, or one value per model")
    .requiredOption('--effect <slope>', 'true slope: reasoning points per grounding point (0: no effect)', parseNumber)
    .requiredOption('--noise <sd>', "SD of the models' reasoning around the line, % points", parseNumber)
    .option('--items <n>', 'items behind each measured accuracy (adds binomial measurement error to both)', parsePositiveInt)
    .option('--reasoning-mean <pct>', 'mean reasoning accuracy at the mean grounding (default 50)', parseNumber)
    .option('--alpha <a>', 'significance level (default 0.05)', parseNumber)
    .option('--simulations <n>', 'simulated studies (default 10000)', parsePositiveInt)
    .option('--seed <n>', 'seed (default 0)', parseSeed)
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { models?: number; grounding?: string; effect: number; noise: number; items?: number; reasoningMean?: number; alpha?: number; simulations?: number; seed?: number; json?: boolean }) => {
        const { regressionPower, formatPower } = await analysisLib();
        const grounding = parseGrounding(o.grounding, o.models);
        let result;
        try {
          result = regressionPower({ grounding, effect: o.effect, noise: o.noise, items: o.items, reasoningMean: o.reasoningMean, alpha: o.alpha, simulations: o.simulations, seed: o.seed });
        } catch (err) {
          throw new GsrError((err as Error).message);
        }
        if (o.json) return printJson({ grounding, ...result });
        process.stdout.write(`grounding: ${grounding.map((v) => v.toFixed(1)).join(', ')}\n${formatPower(result)}\n`);
      }),
    );

  analyze
    .command('relabel')
    .description('Re-score G-Scores against reviewed labels: how each score moves, with intervals, and the regression before and after')
    .requiredOption('--before <file>', 'annotation file the results were scored against (the pseudo-labels)')
    .requiredOption('--after <file>', 'reviewed annotation file (gsr review export)')
    .requiredOption('--results <dir...>', 'results folders with grounding-items.jsonl, one per model')
    .option('--y <metric>', 'reasoning metric for the regression', 'reasoning:total:circular')
    .option('--x <metric>', 'G-Score for the regression: grounding:avg or grounding:<split>/<role>', 'grounding:avg')
    .option('--resamples <n>', 'bootstrap resamples', parsePositiveInt, 2000)
    .option('--out <file>', 'also write the JSON result to this file')
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { before: string; after: string; results: string[]; y: string; x: string; resamples: number; out?: string; json?: boolean }) => {
        const { loadAllResults } = await import('../../analysis/load-results.js');
        const { relabelResults } = await import('../../report/relabel.js');
        const loaded = await loadAllResults(o.results);
        const { models, regression, skipped, left_out, warnings } = await relabelResults(loaded, o.before, o.after, { y: o.y, x: o.x, resamples: o.resamples });
        for (const dir of skipped) notice(`warning: ${dir}: no grounding-items.jsonl (skipped)`);
        for (const w of warnings) notice(`warning: ${w}`);
        for (const m of left_out) notice(`warning: ${m.label} left out of the regression: ${m.reason}`);
        if (models.length === 0) throw new GsrError('no results folder has grounding-items.jsonl');
        const result = { before: o.before, after: o.after, models, regression, left_out };
        if (o.out) await writeJsonAtomic(o.out, result);
        if (o.json) return printJson(result);
        const pct = (v: number | null) => (v === null ? '    -' : (100 * v).toFixed(1).padStart(5));
        const signed = (v: number) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}`;
        process.stdout.write('model\tcolumn\tbefore\tafter\tchange [95% CI]\tflipped\tadded\tremoved\tno label (before/after)\n');
        for (const m of models) {
          for (const [col, c] of Object.entries(m.columns)) {
            const d = c.delta ? `${signed(c.delta.estimate)} [${signed(c.delta.low)}, ${signed(c.delta.high)}]` : '-';
            process.stdout.write(`${m.model}\t${col}\t${pct(c.before)}\t${pct(c.after)}\t${d}\t${c.flipped}\t${c.added}\t${c.removed}\t${c.no_label_before}/${c.no_label_after}\n`);
          }
          const ci = m.avg_after_ci ? ` [${pct(m.avg_after_ci.low).trim()}, ${pct(m.avg_after_ci.high).trim()}]` : '';
          process.stdout.write(`${m.model}\tavg\t${pct(m.avg_before)}\t${pct(m.avg_after)}${ci}\n`);
        }
        const r = regression;
        const fit = (f: typeof r.before) => (f ? `slope ${f.slope.toFixed(3)}, p = ${formatP(f.p)}, R² = ${f.r2.toFixed(3)}` : 'not fitted (fewer than 3 models)');
        process.stdout.write(`regression ${r.y} ~ ${r.x} across ${r.models.length} models\n  before review: ${fit(r.before)}\n  after review:  ${fit(r.after)}\n`);
        if (r.same_conclusion !== null) process.stdout.write(`  conclusion at p < 0.05: ${r.same_conclusion ? 'unchanged' : 'CHANGED'}\n`);
      }, (o) => ({ files: [o.out] })),
    );

  analyze
    .command('label-noise')
    .description('The pseudo-label error budget: the same models scored against pseudo-labels and against exact truth (G-Scores, regression, DAP), and an annotator-quality sweep')
    .requiredOption('--results <dir...>', 'results folders scored against the pseudo-labels, one per model')
    .requiredOption('--truth-results <dir...>', 'the same models scored against the exact truth (matched by model name)')
    .option('--pseudo <file>', 'the pseudo-label annotation file (with --truth: the annotator\'s own hit rate)')
    .option('--truth <file>', 'the exact annotation file (enables the sweep)')
    .option('--y <metric>', 'reasoning metric for the regression', 'reasoning:total:circular')
    .option('--x <metric>', 'G-Score for the regression: grounding:avg or grounding:<split>/<role>', 'grounding:avg')
    .option('--sweep <qualities>', 'annotator qualities to sweep, comma-separated shares (default 1,0.95,0.9,0.85,0.8,0.7,...,0.1,0.05), or "none"')
    .option('--draws <n>', 'seeded annotators per quality', parsePositiveInt, 50)
    .option('--alpha <a>', 'significance level of the conclusion', parseNumber, 0.05)
    .option('--seed <n>', 'seed of the bootstrap and the annotators', parseSeed, 0)
    .option('--resamples <n>', 'bootstrap resamples', parsePositiveInt, 2000)
    .option('--plot <file.svg>', "write the sweep's figure")
    .option('--out <file>', 'also write the JSON result to this file')
    .option('--json', 'print only JSON on stdout')
    .action(
      action(async (o: { results: string[]; truthResults: string[]; pseudo?: string; truth?: string; y: string; x: string; sweep?: string; draws: number; alpha: number; seed: number; resamples: number; plot?: string; out?: string; json?: boolean }) => {
        const { labelNoiseResults, formatLabelNoise, sweepPlotSpec } = await import('../../report/label-noise.js');
        const sweep = parseQualities(o.sweep);
        if (o.plot && (!o.truth || sweep?.length === 0)) throw new GsrError('--plot draws the sweep: give --truth (and not --sweep none)');
        const { warnings, ...report } = await labelNoiseResults({ ...o, sweep });
        for (const w of warnings) notice(`warning: ${w}`);
        if (o.out) await writeJsonAtomic(o.out, report);
        if (o.plot && report.sweep) {
          const { vegaLiteToSvg } = await import('../../report/plots.js');
          const { writeFileAtomic } = await import('../../util/fs.js');
          await writeFileAtomic(o.plot, await vegaLiteToSvg(sweepPlotSpec(report.sweep, report.annotator?.hit_rate)));
        }
        if (o.json) return printJson(report);
        process.stdout.write(formatLabelNoise(report) + '\n');
      }, (o) => ({ files: [o.out, o.plot] })),
    );
}

/** `none`, or comma-separated shares in (0, 1]; undefined keeps the default grid. */
function parseQualities(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === 'none') return [];
  const values = text.split(',').map((v) => Number(v.trim()));
  if (values.some((v) => !(v > 0 && v <= 1))) throw new GsrError(`--sweep ${text}: need comma-separated shares in (0, 1], or "none"`);
  return values;
}

/** `LOW:HIGH` spread evenly over `models`, or a comma-separated list (whose length is the model count). */
function parseGrounding(text: string | undefined, models: number | undefined): number[] {
  if (text === undefined) throw new GsrError('give --grounding LOW:HIGH with --models K, or --grounding V1,V2,...');
  const range = /^\s*([-+\d.eE]+)\s*:\s*([-+\d.eE]+)\s*$/.exec(text);
  if (range) {
    const [lo, hi] = [Number(range[1]), Number(range[2])];
    if (!Number.isFinite(lo) || !Number.isFinite(hi) || !(hi > lo)) throw new GsrError(`--grounding ${text}: need LOW:HIGH with LOW < HIGH`);
    if (models === undefined || models < 3) throw new GsrError('--grounding LOW:HIGH needs --models K (at least 3)');
    return Array.from({ length: models }, (_, i) => lo + ((hi - lo) * i) / (models - 1));
  }
  const values = text.split(',').map((v) => Number(v.trim()));
  if (values.some((v, i) => text.split(',')[i].trim() === '' || !Number.isFinite(v))) throw new GsrError(`--grounding ${text}: not a list of numbers`);
  if (models !== undefined && models !== values.length) throw new GsrError(`--models ${models} but --grounding lists ${values.length} values`);
  return values;
}
