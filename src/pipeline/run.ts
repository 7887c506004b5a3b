/**
 * `gsr pipeline run`: loads a pipeline file, checks it, builds its stages
 * (dataset -> annotate -> prompts -> answer -> score -> analyze -> report) and runs them through the
 * stage engine, which skips what is unchanged and resumes what was interrupted.
 */
import { join, resolve } from 'node:path';
import '../mllm/index.js'; // registers the answerers (openai and the baselines)
import type { PipelineConfig } from '../formats/pipeline.js';
import { benchStages, isBenchPipeline, loadBenchPipeline, runBenchPipeline } from './bench.js';
import { runStages, stageStatus, type Stage, type StageOutcome, type StageStatus } from './engine.js';
import { loadPipeline, type LoadedPipeline } from '../formats/pipeline-file.js';
import { preflight } from './preflight.js';
import { PipelineProgress } from './progress.js';
import { analyzeStage, type AnalyzeStageSummary } from './stages/analyze.js';
import { annotateStage, type AnnotateStageSummary } from './stages/annotate.js';
import { answerStage, type AnswerStageSummary } from './stages/answer.js';
import { datasetStage } from './stages/dataset.js';
import { labelNoiseStage, type LabelNoiseStageSummary } from './stages/label-noise.js';
import { photosStage, type PhotosStageSummary } from './stages/photos.js';
import { promptsStage } from './stages/prompts.js';
import { reportStage, type ReportStageSummary } from './stages/report.js';
import { scoreStage, type ScoreStageSummary } from './stages/score.js';
import { failureLines, promptShortfalls, stageFailures, summaryNotes, summaryRows, summaryWarnings, type StageFailures, type SummaryRow } from './summary.js';
import type { PromptsStageSummary } from './stages/prompts.js';

/** Stage names in run order (`photos` only when the pipeline has `photos:`). */
export const STAGE_NAMES = ['dataset', 'annotate', 'photos', 'prompts', 'answer', 'score', 'analyze', 'label-noise', 'report'] as const;

/** The stages of a pipeline, cut after `stop_after` (`photos` and `label-noise` only when they apply). */
export function buildStages(config: PipelineConfig): Stage[] {
  const optional = (s: Stage | null) => (s ? [s] : []);
  const all = [
    datasetStage(config), annotateStage(config), ...optional(photosStage(config)), promptsStage(config), answerStage(config), scoreStage(config), analyzeStage(config),
    ...optional(labelNoiseStage(config)), reportStage(config),
  ];
  const stop = config.stop_after ? all.findIndex((s) => s.name === config.stop_after) : all.length - 1;
  return all.slice(0, stop + 1);
}

export interface PipelineRunOptions {
  /** Replaces the file's `out`. */
  out?: string;
  force?: boolean;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Where stage lines go (default stderr). */
  log?: (line: string) => void;
}

export interface PipelineResult {
  name: string;
  out: string;
  stages: Array<{ name: string; status: StageOutcome['status']; seconds: number }>;
  seconds: number;
  /** What perception the annotations came from, in words. */
  perception: string | null;
  skipped_models: LoadedPipeline['skippedModels'];
  /** Sections left out (the real-photo stage without its environment variables), with how to turn them on. */
  skipped_sections?: Array<{ name: string; reason: string; how: string }>;
  rows: SummaryRow[];
  /** More than 10% of a model's answers to a task unparsed, one line each. */
  warnings: string[];
  /** Grounding objects without a pseudo-label and what that does to the G-Score (docs/scoring.md, "Semantics"). */
  notes?: string[];
  regression: AnalyzeStageSummary | null;
  /** The real photos' detector hit rate against reference boxes, when the pipeline has `photos:`. */
  photos?: PhotosStageSummary | null;
  /** Synthetic scenes annotated by models: the pseudo-label error budget (stage `label-noise`). */
  label_noise?: LabelNoiseStageSummary | null;
  /** Absolute path of the HTML report, when the report stage ran. */
  report: string | null;
  /** Benchmark pipelines: the plug-in's tables as text. */
  tables?: string[];
  /** Stages whose items failed (item faults): the pipeline exits 3 when there are any (docs/cli.md, "Exit codes"). */
  failed_items?: StageFailures[];
  /** One line per stage with failed items, then per stage output that covers fewer items than its input. */
  item_notes?: string[];
}

const SHIPPED_MODELS = ['gsr-synth-det', 'gsr-synth-depth'];

/** How to turn a left-out section on, in one line. */
function turnOn(s: LoadedPipeline['skippedSections'][number]): string {
  if (s.name !== 'photos') return `set ${s.unset.join(' and ')} to run it`;
  const detector = typeof s.written.detector === 'string' ? s.written.detector : 'fastestdet';
  // The project's own models ship in models/ (training/README.md): nothing to install.
  const install = SHIPPED_MODELS.includes(detector) ? '' : ` and install ${detector} (\`gsr models pull ${detector}\`)`;
  return `set ${s.unset.join(' and ')} to a folder of photos in What'sUp's layout${install} to run the real-photo check (docs/pipeline.md, "Real photos")`;
}

/** Loads, checks and runs a pipeline file. */
export async function runPipeline(file: string, options: PipelineRunOptions = {}): Promise<PipelineResult> {
  if (await isBenchPipeline(file)) return runBenchPipeline(file, options);
  const started = Date.now();
  const loaded = await loadPipeline(file, options.env);
  const config = options.out ? { ...loaded.config, out: resolve(options.out) } : loaded.config;
  await preflight(config, file);
  const stages = buildStages(config);
  const progress = new PipelineProgress(stages.length, options.log ? (l) => options.log!(l) : undefined);
  for (const m of loaded.skippedModels) progress.line(`model ${m.name} skipped (${m.reason})`);
  const skippedSections = loaded.skippedSections.map((s) => ({ name: s.name, reason: s.reason, how: turnOn(s) }));
  for (const s of skippedSections) progress.line(`${s.name} skipped (${s.reason})`);
  const outcomes = await runStages(stages, { out: config.out, force: options.force, progress, signal: options.signal });
  const summaryOf = <T>(name: string) => outcomes.find((o) => o.name === name)?.record.summary as T | undefined;
  const report = summaryOf<ReportStageSummary>('report');
  const failed = stageFailures({ annotate: summaryOf('annotate'), photos: summaryOf('photos'), answer: summaryOf('answer') });
  return {
    name: config.name,
    out: config.out,
    stages: outcomes.map((o) => ({ name: o.name, status: o.status, seconds: o.seconds })),
    seconds: (Date.now() - started) / 1000,
    perception: summaryOf<AnnotateStageSummary>('annotate')?.perception ?? null,
    skipped_models: loaded.skippedModels,
    skipped_sections: skippedSections,
    rows: summaryRows(summaryOf<AnswerStageSummary>('answer'), summaryOf<ScoreStageSummary>('score')),
    warnings: summaryWarnings(summaryOf<ScoreStageSummary>('score')),
    notes: summaryNotes(summaryOf<ScoreStageSummary>('score')),
    regression: summaryOf<AnalyzeStageSummary>('analyze') ?? null,
    photos: summaryOf<PhotosStageSummary>('photos') ?? null,
    label_noise: summaryOf<LabelNoiseStageSummary>('label-noise') ?? null,
    report: report ? join(config.out, 'report', report.file) : null,
    failed_items: failed,
    item_notes: [...failureLines(failed), ...promptShortfalls(summaryOf<PromptsStageSummary>('prompts'))],
  };
}

/** What `gsr pipeline run` would do now for a pipeline file, without running it. */
export async function pipelineStatus(file: string, options: Pick<PipelineRunOptions, 'out' | 'env'> = {}): Promise<{ out: string; stages: StageStatus[] }> {
  if (await isBenchPipeline(file)) {
    const bench = await loadBenchPipeline(file, options.env);
    const out = options.out ? resolve(options.out) : bench.config.out;
    return { out, stages: await stageStatus(benchStages({ ...bench.config, out }), out) };
  }
  const loaded = await loadPipeline(file, options.env);
  const out = options.out ? resolve(options.out) : loaded.config.out;
  return { out, stages: await stageStatus(buildStages({ ...loaded.config, out }), out) };
}
