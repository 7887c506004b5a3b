/**
 * Stage `analyze`: the grounding-versus-reasoning regression across the pipeline's models
 * (`analysis.json`), on the metrics the pipeline names or, by default, the paper's (Subset A TG
 * CircularEval on Subset A subject G-Score; the first split of other datasets).
 */
import { join } from 'node:path';
import { fitTable, loadAllResults, tableFromResults, type RegressionReport, type RegressionTable } from '../../analysis/index.js';
import { errorMessage } from '../../util/errors.js';
import { writeJsonAtomic } from '../../util/fs.js';
import type { PipelineConfig } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import type { DatasetSummary } from './dataset.js';
import type { ScoreStageSummary } from './score.js';

export const ANALYSIS_FILE = 'analysis.json';

export interface AnalyzeStageSummary {
  y: string;
  x: string;
  models: number;
  /** Slope, its p-value and R², or why there is no fit. */
  slope: number | null;
  p: number | null;
  r2: number | null;
  note: string | null;
}

/** The regression metrics: the pipeline's, else the paper's on the first split of the data. */
export function regressionMetrics(config: PipelineConfig, splits: string[]): { y: string; x: string } {
  if (config.metrics.regression) return config.metrics.regression;
  const split = splits.includes('whatsup-a') ? 'whatsup-a' : (splits[0] ?? 'whatsup-a');
  return { y: `reasoning:${split}:circular`, x: `grounding:${split}/subject` };
}

/** Split names a dataset stage summary reports (synthetic scenes are one split). */
export function datasetSplits(d: DatasetSummary): string[] {
  return d.kind === 'synthetic' ? ['synthetic'] : Object.keys(d.counts);
}

export function analyzeStage(config: PipelineConfig): Stage {
  return {
    name: 'analyze',
    after: ['dataset', 'score'],
    settings: { regression: config.metrics.regression ?? null },
    async run(ctx): Promise<AnalyzeStageSummary> {
      const { y, x } = regressionMetrics(config, datasetSplits(ctx.summaryOf<DatasetSummary>('dataset')));
      const scoreDir = ctx.input('score');
      const dirs = ctx.summaryOf<ScoreStageSummary>('score').dirs.map((d) => join(scoreDir, d));
      const results = await loadAllResults(dirs);
      let table: RegressionTable | null = null;
      let fit: RegressionReport | null = null;
      let note: string | null = null;
      try {
        table = tableFromResults(results, y, [x]);
        fit = fitTable(table, 'regression across models');
      } catch (err) {
        note = errorMessage(err);
      }
      await writeJsonAtomic(join(ctx.dir, ANALYSIS_FILE), { regression: { y, x, table, fit, note } });
      const slope = fit?.coefficients?.find((c) => c.name === x) ?? null;
      if (note) ctx.notice(`no regression: ${note}`);
      return { y, x, models: table?.labels.length ?? 0, slope: slope?.estimate ?? null, p: slope?.p ?? null, r2: fit?.r2 ?? null, note };
    },
  };
}
