import type { Command } from 'commander';
import { GsrError } from '../../util/errors.js';
import { notice } from '../../util/log.js';
import { action } from '../action.js';
import { deprecatedOption, parsePositiveInt, parseSeed } from '../parsers.js';

interface ReportCliOptions {
  results: string[];
  out: string;
  format: string;
  manifest?: string;
  prompts?: string;
  annotations?: string;
  title?: string;
  seed?: number;
  resamples?: number;
  galleryPerGroup?: number;
  thumbSize?: number;
  previewChars?: number;
  y?: string;
  x?: string;
  reviewed?: string;
  paperNames?: string;
  paper: boolean;
}

export function registerReport(program: Command): void {
  const report = program
    .command('report')
    .description('Write a self-contained HTML report with tables, plots and an image gallery')
    .requiredOption('--results <dir...>', 'results folders, one per model')
    .requiredOption('--out <file>', 'output file (report.html)')
    .option('--format <name>', 'report format', 'html')
    .option('--manifest <file>', 'dataset manifest (JSONL) to find gallery images by item id')
    .option('--annotations <file>', 'COCO annotations: draw masks and show depth on grounding entries')
    .option('--prompts <file>', 'prompts JSONL to show prompt texts in the gallery (matched by key)')
    .option('--title <text>', 'page title')
    .option('--seed <n>', 'bootstrap seed (default 0)', parseSeed)
    .option('--resamples <n>', 'bootstrap resamples (default 2000)', parsePositiveInt)
    .option('--gallery-per-group <n>', 'gallery entries per model/kind/split/verdict (default 6)', parsePositiveInt)
    .option('--thumb-size <px>', 'longest side of gallery images (default 360)', parsePositiveInt)
    .option('--preview-chars <n>', 'longest model output shown whole in the page; longer ones link to a side file (default 2000)', parsePositiveInt)
    .option('--y <metric>', 'regression response (default reasoning:whatsup-a:circular)')
    .option('--x <metric>', 'regression regressor (default grounding:whatsup-a/subject)')
    .option('--reviewed <file>', 'reviewed annotation file (gsr review export): adds a pseudo-labels vs reviewed labels section, with --annotations as the pseudo-labels')
    .option('--paper-names <file>', "name map from results-folder model names to the paper's (default data/paper/paper-models.json)")
    .option('--no-paper', 'leave out the published-beside-measured section')
    .action(
      action(async (o: ReportCliOptions) => {
        // Loaded here: the report pulls in vega and the statistics, which are slow to load.
        const { loadAllResults } = await import('../../analysis/load-results.js');
        const { reportWriters } = await import('../../report/index.js');
        if (o.reviewed && !o.annotations) throw new GsrError('--reviewed needs --annotations (the pseudo-labels the results were scored against)');
        const writer = reportWriters.get(o.format);
        const results = await loadAllResults(o.results);
        for (const r of results) for (const w of r.warnings) notice(`warning: ${w}`);
        await writer(results, o.out, {
          manifest: o.manifest,
          prompts: o.prompts,
          annotations: o.annotations,
          title: o.title,
          seed: o.seed,
          resamples: o.resamples,
          perGroup: o.galleryPerGroup,
          thumbSize: o.thumbSize,
          previewChars: o.previewChars,
          regressionY: o.y,
          regressionX: o.x,
          reviewed: o.reviewed,
          paperNames: o.paperNames,
          paper: o.paper,
        });
        notice(`wrote ${o.out} (${results.length} model(s))`);
      }, (o) => ({ files: [o.out] })),
    );
  // Before `analyze` and `report` shared one spelling.
  deprecatedOption(report, '--regression-y <metric>', '--y');
  deprecatedOption(report, '--regression-x <metric>', '--x');
}
