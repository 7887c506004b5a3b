/** Stage `report`: the self-contained HTML report over every model's results folder. */
import { join } from 'node:path';
import { loadAllResults } from '../../analysis/load-results.js';
import type { PipelineConfig } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import type { AnalyzeStageSummary } from './analyze.js';
import type { ScoreStageSummary } from './score.js';
import { MANIFEST_FILE } from '../../formats/manifest.js';
import { readJsonFile } from '../../util/jsonl.js';
import { PHOTOS_FILE, type PhotoObject, type PhotosSummary } from '../../formats/photos.js';
import type { LabelNoiseReport } from '../../analysis/label-noise.js';
import type { QualityReport } from '../../annotate/quality.js';
import { overlayUrls, trainingRecord, type PerceptionReport } from '../../report/perception.js';
import { annotatorModels, hasTruthBesidePseudoLabels, type AnnotateStageSummary } from './annotate.js';
import { LABEL_NOISE_FILE } from '../../formats/results.js';
import type { AnswerStageSummary } from './answer.js';
import type { PromptsStageSummary } from './prompts.js';
import { itemNotes } from '../summary.js';

/** The perception section's and the label-noise section's inputs (synthetic scenes annotated by models). */
async function truthComparison(config: PipelineConfig, annotateDir: string, annotate: AnnotateStageSummary, labelNoiseFile: string): Promise<{ perception: PerceptionReport; labelNoise: LabelNoiseReport }> {
  const m = annotatorModels(config);
  const records: PerceptionReport['records'] = [];
  for (const id of [m.detector, m.segmenter, m.depth]) {
    const record = id ? await trainingRecord(id, m.modelsDir) : null;
    if (id && record) records.push({ id, record });
  }
  return {
    perception: { line: annotate.perception, records, quality: (annotate.quality as QualityReport | undefined) ?? null, overlays: await overlayUrls(join(annotateDir, 'overlays'), annotate.overlays ?? []) },
    labelNoise: await readJsonFile<LabelNoiseReport>(labelNoiseFile),
  };
}

export interface ReportStageSummary {
  /** Report file, relative to the stage folder. */
  file: string;
  warnings: number;
}

export function reportStage(config: PipelineConfig): Stage {
  const withTruth = hasTruthBesidePseudoLabels(config);
  return {
    name: 'report',
    code: [import.meta.url],
    after: ['dataset', 'annotate', 'prompts', 'answer', 'score', 'analyze', ...(config.photos ? ['photos'] : []), ...(withTruth ? ['label-noise'] : [])],
    settings: { title: config.report.title ?? config.name, file: config.report.file },
    async run(ctx): Promise<ReportStageSummary> {
      // Loaded here, not at start-up: the report pulls in vega and sharp (docs/cli.md, "Start-up").
      const { reportWriters } = await import('../../report/index.js');
      const scoreDir = ctx.input('score');
      const results = await loadAllResults(ctx.summaryOf<ScoreStageSummary>('score').dirs.map((d) => join(scoreDir, d)));
      const { y, x } = ctx.summaryOf<AnalyzeStageSummary>('analyze');
      const primary = config.prompts.tasks.find((t) => t === 'tg' || t === 'mc');
      await reportWriters.get('html')(results, join(ctx.dir, config.report.file), {
        title: config.report.title ?? `gsr-bench: ${config.name}`,
        regressionY: y,
        regressionX: x,
        manifest: join(ctx.input('dataset'), MANIFEST_FILE),
        prompts: primary ? join(ctx.input('prompts'), `${primary}.jsonl`) : undefined,
        photos: config.photos
          ? { summary: ctx.summaryOf<PhotosSummary>('photos'), objects: (await readJsonFile<{ objects: PhotoObject[] }>(join(ctx.input('photos'), PHOTOS_FILE))).objects }
          : undefined,
        itemNotes: itemNotes({
          annotate: ctx.summaryOf<AnnotateStageSummary>('annotate'),
          photos: config.photos ? ctx.summaryOf<PhotosSummary>('photos') : undefined,
          answer: ctx.summaryOf<AnswerStageSummary>('answer'),
          prompts: ctx.summaryOf<PromptsStageSummary>('prompts'),
        }),
        ...(withTruth ? await truthComparison(config, ctx.input('annotate'), ctx.summaryOf<AnnotateStageSummary>('annotate'), join(ctx.input('label-noise'), LABEL_NOISE_FILE)) : {}),
      });
      return { file: config.report.file, warnings: results.reduce((n, r) => n + r.warnings.length, 0) };
    },
  };
}
