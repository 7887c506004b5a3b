/**
 * Stage `label-noise` (only for synthetic scenes annotated by models): everything downstream of the
 * annotations once more against the exact truth, and the pseudo-label error budget between the two
 * (docs/analysis.md, "Label noise"). The DAP prompts are built again with hints from the exact depth
 * and asked again; every model is scored against the truth into `truth/<model>/` (the score stage's
 * layout); `label-noise.json` holds the budget and the annotator-quality sweep.
 */
import { join } from 'node:path';
import { RunStore } from '../../mllm/index.js';
import { buildPromptFile } from '../../prompts/index.js';
import { indexGroundTruth, type GroundTruthIndex } from '../../scoring/index.js';
import { DEFAULT_SWEEP, labelNoiseResults } from '../../report/label-noise.js';
import { ANNOTATIONS_FILE, readCocoFile } from '../../formats/coco.js';
import { MANIFEST_FILE } from '../../formats/manifest.js';
import type { PromptRecord } from '../../formats/prompts.js';
import { readResponseFile, type ResponseRecord } from '../../formats/responses.js';
import { modelFolder, type PipelineConfig, type PipelineTask } from '../../formats/pipeline.js';
import { LABEL_NOISE_FILE } from '../../formats/results.js';
import { sha256File } from '../../util/hash.js';
import { writeJsonAtomic } from '../../util/fs.js';
import type { SkippedRecord } from '../../util/jsonl.js';
import type { Stage } from '../engine.js';
import type { AnalyzeStageSummary } from './analyze.js';
import { answererAnnotations, hasTruthBesidePseudoLabels } from './annotate.js';
import { modelAsker, modelTasks, RESPONSES_FILE, STORE_FILE } from './answer.js';
import { askModel } from '../ask.js';
import { promptFileFor } from './prompts.js';
import { scoreModelInto, sharedPromptFiles, type ScoreStageSummary } from './score.js';

/** Seeded annotators per quality in the sweep. */
export const SWEEP_DRAWS = 50;

export interface LabelNoiseStageSummary {
  /** The annotator's hit rate against the truth (IoU >= 0.5, a missing box a miss). */
  annotator_hit_rate: number | null;
  y: string;
  x: string;
  pseudo: { slope: number; p: number } | null;
  truth: { slope: number; p: number } | null;
  /** Lowest swept annotator quality at which the paper's conclusion survives (null: none). */
  survives_down_to: number | null;
  /** Results folders scored against the truth, relative to the stage folder, in model order. */
  dirs: string[];
}

export function labelNoiseStage(config: PipelineConfig): Stage | null {
  if (!hasTruthBesidePseudoLabels(config)) return null;
  const p = config.prompts;
  const asksDap = (m: PipelineConfig['models'][number]) => modelTasks(m, config).includes('dap');
  return {
    name: 'label-noise',
    code: [import.meta.url],
    after: ['dataset', 'annotate', 'prompts', 'answer', 'score', 'analyze'],
    stopping: 'finishing the exact-depth answers in flight (answers so far are kept)',
    settings: {
      dap: p.tasks.includes('dap') ? { permutations: p.permutations, dap: p.dap, templates: p.templates ?? null } : null,
      // What the DAP answers depend on (as the answer stage); how they are asked does not count.
      models: config.models.filter(asksDap).map((m) => ({ ...m, concurrency: undefined, timeout_ms: undefined, rate_limit: undefined })),
      sweep: { qualities: DEFAULT_SWEEP, draws: SWEEP_DRAWS, seed: 0 },
    },
    async run(ctx): Promise<LabelNoiseStageSummary> {
      const datasetDir = ctx.input('dataset');
      const truthFile = join(datasetDir, ANNOTATIONS_FILE);
      const pseudoFile = join(ctx.input('annotate'), ANNOTATIONS_FILE);
      const promptsDir = ctx.input('prompts');
      const answersDir = ctx.input('answer');
      // 1. DAP prompts with hints from the exact depth (per template set, as the prompts stage).
      const dapFile = (model: PipelineConfig['models'][number]) => join(ctx.dir, 'prompts', promptFileFor(model, 'dap'));
      const dapModels = config.models.filter(asksDap);
      for (const model of dapModels.filter((m, i) => dapModels.findIndex((n) => dapFile(n) === dapFile(m)) === i)) {
        const r = await buildPromptFile({
          manifest: join(datasetDir, MANIFEST_FILE), task: 'dap', out: dapFile(model), annotations: truthFile, permutations: p.permutations,
          templatesFile: model.templates ?? p.templates, model: model.templates ? model.name : undefined, baseTask: p.dap.base_task, depthStat: p.dap.depth_stat, relations: p.dap.relations,
        });
        if (r.skipped.length > 0) ctx.notice(`exact-depth DAP prompts: ${r.skipped.length} items skipped (first: ${r.skipped[0].item}: ${r.skipped[0].reason})`);
      }
      // 2. Ask them, as the answer stage asks (a store of their own: the hints differ, so do the keys).
      const file = answererAnnotations(config, datasetDir, ctx.input('annotate'));
      const annotations = { file, sha256: await sha256File(file) };
      const dapAnswers = new Map<string, ResponseRecord[]>();
      const store = RunStore.open(join(ctx.stateDir, STORE_FILE));
      try {
        for (const model of dapModels) {
          const { settings, answerer } = await modelAsker(model, annotations);
          const dir = join(ctx.dir, 'answers', modelFolder(model.name));
          try {
            await askModel(ctx, { store, answerer, settings, dir, concurrency: model.concurrency, timeoutMs: model.timeout_ms, prompts: [{ file: dapFile(model), label: `${model.name} exact-depth DAP prompts` }] });
          } finally {
            await answerer.close?.();
          }
          dapAnswers.set(model.name, await readResponseFile(join(dir, RESPONSES_FILE), []));
        }
      } finally {
        store.close();
      }
      // 3. Every model scored against the truth, in the score stage's layout.
      let truthIndex: GroundTruthIndex | undefined;
      const labels = async () => (truthIndex ??= indexGroundTruth(await readCocoFile(truthFile)));
      const dirs: string[] = [];
      const readPrompts = sharedPromptFiles();
      ctx.progress.start(config.models.length, 'models scored against the truth');
      for (const model of config.models) {
        const skipped: SkippedRecord[] = [];
        const responses = [...(await readResponseFile(join(answersDir, modelFolder(model.name), RESPONSES_FILE), skipped)), ...(dapAnswers.get(model.name) ?? [])];
        const prompts = async (task: PipelineTask): Promise<PromptRecord[]> => readPrompts(task === 'dap' ? dapFile(model) : join(promptsDir, promptFileFor(model, task)), skipped);
        await scoreModelInto(config, model, join(ctx.dir, 'truth', modelFolder(model.name)), { prompts, responses, labels, notice: (t) => ctx.notice(t) });
        dirs.push(join('truth', modelFolder(model.name)));
        ctx.progress.tick();
      }
      // 4. The budget between the score stage's results and these.
      const { y, x } = ctx.summaryOf<AnalyzeStageSummary>('analyze');
      const scoreDir = ctx.input('score');
      const { warnings, ...report } = await labelNoiseResults({
        results: ctx.summaryOf<ScoreStageSummary>('score').dirs.map((d) => join(scoreDir, d)),
        truthResults: dirs.map((d) => join(ctx.dir, d)),
        pseudo: pseudoFile,
        truth: truthFile,
        y,
        x,
        sweep: DEFAULT_SWEEP,
        draws: SWEEP_DRAWS,
        seed: 0,
      });
      for (const w of warnings.slice(0, 3)) ctx.notice(w);
      await writeJsonAtomic(join(ctx.dir, LABEL_NOISE_FILE), report);
      const fit = (f: typeof report.regression.pseudo) => (f ? { slope: f.slope, p: f.p } : null);
      return { annotator_hit_rate: report.annotator?.hit_rate ?? null, y, x, pseudo: fit(report.regression.pseudo), truth: fit(report.regression.truth), survives_down_to: report.sweep?.survives_down_to ?? null, dirs };
    },
  };
}
