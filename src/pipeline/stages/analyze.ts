/**
 * Stage `analyze`: the grounding-versus-reasoning regression across the pipeline's models
 * (`analysis.json`), on the metrics the pipeline names or, by default, the paper's (Subset A TG
 * CircularEval on Subset A subject G-Score; the first split of other datasets).
 */
import { join } from 'node:path';
import { fitTable, loadAllResults, parseMetric, tableFromResults, type ModelResults, type RegressionReport, type RegressionTable } from '../../analysis/index.js';
import { readCocoFile } from '../../formats/coco.js';
import { readPromptFile } from '../../formats/prompts.js';
import { simulatedTrueSlope } from '../../mllm/baselines/simulated.js';
import { errorMessage } from '../../util/errors.js';
import { writeJsonAtomic } from '../../util/fs.js';
import type { PipelineConfig } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import type { DatasetSummary } from './dataset.js';
import type { ScoreStageSummary } from './score.js';
import { answererAnnotations } from './annotate.js';
import { modelTasks } from './answer.js';
import { promptFileFor } from './prompts.js';

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
  /** Models the regression left out, with why (no metric, or a G-Score from answers mostly without a box). */
  left_out?: { label: string; reason: string }[];
  /** The regression across the simulated answerers alone, beside the true effect they were built with. */
  simulated: SimulatedFamilySummary | null;
}

export interface SimulatedFamilySummary {
  models: string[];
  slope: number | null;
  p: number | null;
  /** CircularEval with every box a hit minus with every box a miss (`simulatedTrueSlope`); null when the family mixes seeds or error rates. */
  true_slope: number | null;
  all_hits: number | null;
  all_misses: number | null;
  reasoning_error: number | null;
  note: string | null;
}

/**
 * The simulated answerers' own regression and the effect they carry: computed from the primary
 * reasoning task's prompts (TG, else MC) of the regression's split and the annotation file.
 */
async function simulatedFamily(config: PipelineConfig, results: ModelResults[], y: string, x: string, promptsDir: string, annotations: string): Promise<SimulatedFamilySummary | null> {
  const sims = config.models.filter((m) => m.kind === 'simulated');
  if (sims.length === 0) return null;
  const names = sims.map((m) => m.name);
  const out: SimulatedFamilySummary = { models: names, slope: null, p: null, true_slope: null, all_hits: null, all_misses: null, reasoning_error: null, note: null };
  try {
    const fit = fitTable(tableFromResults(results.filter((r) => names.includes(r.model)), y, [x]), 'regression across the simulated answerers');
    const b = fit.coefficients.find((c) => c.name === x);
    [out.slope, out.p] = [b?.estimate ?? null, b?.p ?? null];
  } catch (err) {
    out.note = errorMessage(err);
  }
  const first = sims[0];
  if (sims.some((m) => (m.seed ?? 0) !== (first.seed ?? 0) || (m.reasoning_error ?? 0) !== (first.reasoning_error ?? 0) || m.templates)) {
    out.note ??= 'the simulated answerers differ in seed, reasoning_error or templates: no single true slope';
    return out;
  }
  const tasks = modelTasks(first, config);
  const task = tasks.includes('tg') ? 'tg' : tasks.includes('mc') ? 'mc' : null;
  const split = parseMetric(y).split;
  if (task === null) return out;
  const prompts = (await readPromptFile(join(promptsDir, promptFileFor(first, task)), [])).filter((p) => split === 'total' || p.split === split);
  const truth = simulatedTrueSlope(await readCocoFile(annotations), prompts, first.seed ?? 0, first.reasoning_error ?? 0);
  Object.assign(out, { true_slope: truth.slope, all_hits: truth.all_hits, all_misses: truth.all_misses, reasoning_error: first.reasoning_error ?? 0 });
  return out;
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

/**
 * Why no model can have the regression's metrics, when the pipeline asks none of the prompts they come
 * from (a DAP ablation asks no grounding); null when it asks them.
 */
export function regressionUnavailable(config: PipelineConfig, y: string, x: string): string | null {
  const tasks = config.prompts.tasks;
  const needs = (metric: string) => (metric.startsWith('grounding:') ? (tasks.includes('grounding') ? null : 'grounding') : metric.startsWith('reasoning:') && !tasks.some((t) => t === 'tg' || t === 'mc') ? 'tg or mc' : null);
  const missing = [y, x].map((m) => [m, needs(m)] as const).find(([, task]) => task !== null);
  if (missing === undefined) return null;
  return `this pipeline asks no ${missing[1]} prompts (prompts.tasks: ${tasks.join(', ')}), so no model has ${missing[0]}; add ${missing[1] === 'grounding' ? 'grounding' : 'tg'} to prompts.tasks to fit it`;
}

export function analyzeStage(config: PipelineConfig): Stage {
  return {
    name: 'analyze',
    code: [import.meta.url],
    after: ['dataset', 'prompts', 'annotate', 'score'],
    settings: { regression: config.metrics.regression ?? null },
    async run(ctx): Promise<AnalyzeStageSummary> {
      const { y, x } = regressionMetrics(config, datasetSplits(ctx.summaryOf<DatasetSummary>('dataset')));
      const scoreDir = ctx.input('score');
      const dirs = ctx.summaryOf<ScoreStageSummary>('score').dirs.map((d) => join(scoreDir, d));
      const results = await loadAllResults(dirs);
      let table: RegressionTable | null = null;
      let fit: RegressionReport | null = null;
      // A metric the pipeline never asks for is one reason, not a warning per model.
      let note: string | null = regressionUnavailable(config, y, x);
      if (note === null) {
        try {
          table = tableFromResults(results, y, [x]);
          fit = fitTable(table, 'regression across models');
        } catch (err) {
          note = errorMessage(err);
        }
      }
      const leftOut = table?.skipped ?? [];
      const simulated = await simulatedFamily(config, results, y, x, ctx.input('prompts'), answererAnnotations(config, ctx.input('dataset'), ctx.input('annotate')));
      await writeJsonAtomic(join(ctx.dir, ANALYSIS_FILE), { regression: { y, x, table, fit, note, left_out: leftOut }, simulated });
      const slope = fit?.coefficients?.find((c) => c.name === x) ?? null;
      if (note) ctx.notice(`no regression: ${note}`);
      for (const m of leftOut) ctx.notice(`warning: ${m.label} left out of the regression: ${m.reason}`);
      return { y, x, models: table?.labels.length ?? 0, slope: slope?.estimate ?? null, p: slope?.p ?? null, r2: fit?.r2 ?? null, note, left_out: leftOut, simulated };
    },
  };
}
