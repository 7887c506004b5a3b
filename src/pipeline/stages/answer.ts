/**
 * Stage `answer`: asks every model (HTTP endpoints and baselines alike) every prompt of its tasks
 * through the answer step the plug-in pipelines share (../ask.ts), which writes
 * `<model>/responses.jsonl` with the responses to exactly the current prompts. Responses live in a
 * run store under the pipeline's `.state/answer/`, so an interrupted stage, or a rerun after adding
 * a model, asks only what has no answer yet.
 */
import { join } from 'node:path';
import { answerers, requestOptions, resolveRequest, RunStore, runSettings, type AnswererOptions, type GenerationSettings } from '../../mllm/index.js';
import { endpointsOf, endpointUrls, modelFolder, type ModelConfig, type PipelineConfig, type PipelineTask } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import { ASKING_STOPS, askModel, RESPONSES_FILE, type AskedModel } from '../ask.js';
import { sha256File } from '../../util/hash.js';
import { promptFileFor } from './prompts.js';
import { answererAnnotations } from './annotate.js';

export { RESPONSES_FILE };
export const STORE_FILE = 'store.sqlite';

export interface ModelAnswerSummary {
  name: string;
  kind: string;
  tasks: PipelineTask[];
  prompts: number;
  ok: number;
  failed: number;
  failures: Record<string, number>;
}

export interface AnswerStageSummary {
  models: ModelAnswerSummary[];
}

/** Tasks a model is asked: its own list, within the pipeline's. */
export function modelTasks(model: ModelConfig, config: PipelineConfig): PipelineTask[] {
  return model.tasks ? config.prompts.tasks.filter((t) => model.tasks!.includes(t)) : config.prompts.tasks;
}

/** A model entry's request settings as its answerer takes them (the shared defaults for what it leaves out). */
export function answererOptionsOf(model: ModelConfig, annotations: string | undefined): AnswererOptions {
  return {
    model: model.model ?? model.name, endpoints: endpointsOf(model.base_url), apiKeyEnv: model.api_key_env, timeoutMs: model.timeout_ms,
    ...requestOptions(resolveRequest({ temperature: model.temperature, max_tokens: model.max_tokens, top_p: model.top_p, seed: model.seed })), annotations,
    boxFormat: model.box_format, grounding: model.grounding, reasoning_error: model.reasoning_error, maxAnswerBytes: model.max_answer_bytes,
  };
}

/**
 * What determines a model's responses besides the prompt (the run store's settings): the request
 * settings in force, and for the answerers that read annotations their hash and their own settings.
 */
export function generationSettings(model: ModelConfig, options: AnswererOptions, annotationsSha: string | undefined): GenerationSettings {
  const extra: Record<string, unknown> = {};
  if (model.kind !== 'openai' && model.box_format) extra.box_format = model.box_format;
  if (model.kind === 'simulated') Object.assign(extra, { grounding: model.grounding, reasoning_error: model.reasoning_error ?? 0 });
  if (annotationsSha) extra.annotations_sha256 = annotationsSha;
  return runSettings(model.kind, model.name, options, extra);
}

/** The answerer, its options and settings of a model entry (answers from annotations: `annotations` and its sha256). */
export async function modelAsker(model: ModelConfig, annotations: { file: string; sha256: string }) {
  const usesAnnotations = model.kind === 'geometric' || model.kind === 'simulated';
  const options = answererOptionsOf(model, usesAnnotations ? annotations.file : undefined);
  return { options, settings: generationSettings(model, options, usesAnnotations ? annotations.sha256 : undefined), answerer: await answerers.get(model.kind)(options) };
}

export function answerStage(config: PipelineConfig): Stage {
  return {
    name: 'answer',
    code: [import.meta.url],
    after: ['dataset', 'prompts', 'annotate'],
    // Concurrency, timeouts and endpoint limits change how, not what, is asked.
    settings: config.models.map((m) => ({ ...m, base_url: endpointUrls(m.base_url), concurrency: undefined, timeout_ms: undefined, rate_limit: undefined, tasks: modelTasks(m, config) })),
    stopping: ASKING_STOPS,
    async run(ctx): Promise<AnswerStageSummary> {
      const promptsDir = ctx.input('prompts');
      const file = answererAnnotations(config, ctx.input('dataset'), ctx.input('annotate'));
      const annotations = { file, sha256: await sha256File(file) };
      const store = RunStore.open(join(ctx.stateDir, STORE_FILE));
      const summary: AnswerStageSummary = { models: [] };
      try {
        for (const model of config.models) {
          const { options, settings, answerer } = await modelAsker(model, annotations);
          // With `queue:` endpoint models are asked by queue workers (baselines stay here: they are instant).
          const q = config.queue && model.kind === 'openai' ? await import('../../queue/index.js') : undefined;
          const dispatch = q?.queueDispatch({
            url: config.queue!.url, resume: true, store, model: model.name, settingsId: store.registerSettings(settings), concurrency: model.concurrency, rateLimit: model.rate_limit,
            spec: { answerer: model.kind, options, timeoutMs: model.timeout_ms ?? 60_000, retry: {} },
          });
          const tasks = modelTasks(model, config);
          let asked: AskedModel;
          try {
            asked = await askModel(ctx, {
              store, answerer, settings, dir: join(ctx.dir, modelFolder(model.name)), concurrency: model.concurrency, timeoutMs: model.timeout_ms, dispatch,
              prompts: tasks.map((task) => ({ file: join(promptsDir, promptFileFor(model, task)), label: `${model.name} ${task} prompts` })),
            });
          } finally {
            await answerer.close?.();
          }
          summary.models.push({ name: model.name, kind: model.kind, tasks, prompts: asked.prompts, ok: asked.ok, failed: asked.failed, failures: asked.failures });
        }
      } finally {
        store.close();
      }
      return summary;
    },
  };
}
