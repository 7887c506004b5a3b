/** Stage `report`: the self-contained HTML report over every model's results folder. */
import { join } from 'node:path';
import { loadAllResults } from '../../analysis/load-results.js';
import { reportWriters } from '../../report/index.js';
import type { PipelineConfig } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import type { AnalyzeStageSummary } from './analyze.js';
import type { ScoreStageSummary } from './score.js';
import { MANIFEST_FILE } from '../../formats/manifest.js';
import { readJsonFile } from '../../util/jsonl.js';
import { PHOTOS_FILE, type PhotoObject, type PhotosSummary } from '../../formats/photos.js';

export interface ReportStageSummary {
  /** Report file, relative to the stage folder. */
  file: string;
  warnings: number;
}

export function reportStage(config: PipelineConfig): Stage {
  return {
    name: 'report',
    code: [import.meta.url],
    after: ['dataset', 'prompts', 'score', 'analyze', ...(config.photos ? ['photos'] : [])],
    settings: { title: config.report.title ?? config.name, file: config.report.file },
    async run(ctx): Promise<ReportStageSummary> {
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
      });
      return { file: config.report.file, warnings: results.reduce((n, r) => n + r.warnings.length, 0) };
    },
  };
}
