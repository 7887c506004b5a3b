/**
 * Stage `answer`: asks every model (HTTP endpoints and baselines alike) every prompt of its tasks
 * through the runner, then writes `<model>/responses.jsonl` with the responses to exactly the
 * current prompts. Responses live in a run store under the pipeline's `.state/answer/`, so an
 * interrupted stage, or a rerun after adding a model, asks only what has no answer yet.
 */
import { join } from 'node:path';
import { answerers, RunStore, runPrompts, toResponseRecord, type AnswererOptions, type GenerationSettings, type RunSummary } from '../../mllm/index.js';
import { readJsonl } from '../../util/jsonl.js';
import { writeResponseFile } from '../../formats/responses.js';
import { endpointsOf, endpointUrls, modelFolder, type ModelConfig, type PipelineConfig, type PipelineTask } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import { sha256File } from '../../util/hash.js';
import { promptFileFor } from './prompts.js';
import { answererAnnotations } from './annotate.js';

export const RESPONSES_FILE = 'responses.jsonl';
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

/** What determines a model's responses besides the prompt (the run store's settings). */
export function generationSettings(model: ModelConfig, annotationsSha: string | undefined): GenerationSettings {
  const s: GenerationSettings = { answerer: model.kind, model: model.name, endpoint_model: model.model ?? model.name, temperature: model.temperature ?? 0, max_tokens: model.max_tokens, seed: model.seed };
  if (model.kind === 'openai') s.base_url = endpointUrls(model.base_url);
  if (model.box_format) s.box_format = model.box_format;
  if (model.kind === 'simulated') Object.assign(s, { grounding: model.grounding, reasoning_error: model.reasoning_error ?? 0 });
  if (annotationsSha) s.annotations_sha256 = annotationsSha;
  return s;
}

/** How a model entry's answerer is built (the answer stage's, and the label-noise stage's re-asking). */
export function answererOptionsOf(model: ModelConfig, annotations: string | undefined): AnswererOptions {
  return {
    model: model.model ?? model.name, endpoints: endpointsOf(model.base_url), apiKeyEnv: model.api_key_env, timeoutMs: model.timeout_ms,
    temperature: model.temperature ?? 0, maxTokens: model.max_tokens, seed: model.seed, annotations,
    boxFormat: model.box_format, grounding: model.grounding, reasoning_error: model.reasoning_error, maxAnswerBytes: model.max_answer_bytes,
  };
}

export function answerStage(config: PipelineConfig): Stage {
  return {
    name: 'answer',
    code: [import.meta.url],
    after: ['dataset', 'prompts', 'annotate'],
    // Concurrency, timeouts and endpoint limits change how, not what, is asked.
    settings: config.models.map((m) => ({ ...m, base_url: endpointUrls(m.base_url), concurrency: undefined, timeout_ms: undefined, rate_limit: undefined, tasks: modelTasks(m, config) })),
    async run(ctx): Promise<AnswerStageSummary> {
      const promptsDir = ctx.input('prompts');
      const annotations = answererAnnotations(config, ctx.input('dataset'), ctx.input('annotate'));
      const annotationsSha = await sha256File(annotations);
      const store = RunStore.open(join(ctx.stateDir, STORE_FILE));
      const summary: AnswerStageSummary = { models: [] };
      try {
        for (const model of config.models) {
          const usesAnnotations = model.kind === 'geometric' || model.kind === 'simulated';
          const settings = generationSettings(model, usesAnnotations ? annotationsSha : undefined);
          const answererOptions = answererOptionsOf(model, usesAnnotations ? annotations : undefined);
          const answerer = await answerers.get(model.kind)(answererOptions);
          // With `queue:` endpoint models are asked by queue workers (baselines stay here: they are instant).
          const q = config.queue && model.kind === 'openai' ? await import('../../queue/index.js') : undefined;
          const dispatch = q?.queueDispatch({
            url: config.queue!.url, resume: true, store, model: model.name, settingsId: store.registerSettings(settings), concurrency: model.concurrency, rateLimit: model.rate_limit,
            spec: { answerer: model.kind, options: answererOptions, timeoutMs: model.timeout_ms ?? 60_000, retry: {} },
          });
          const tasks = modelTasks(model, config);
          const m: ModelAnswerSummary = { name: model.name, kind: model.kind, tasks, prompts: 0, ok: 0, failed: 0, failures: {} };
          const keys = new Set<string>();
          // How many answers an earlier (interrupted or superseded) run left in the store: told, not
          // recorded, so that the stage record of a resumed run equals an uninterrupted run's.
          let cached = 0;
          try {
            for (const task of tasks) {
              const file = join(promptsDir, promptFileFor(model, task));
              const r: RunSummary = await runPrompts({
                prompts: file, store, answerer, settings, concurrency: model.concurrency, timeoutMs: model.timeout_ms, signal: ctx.signal, dispatch,
                onStart: ({ toSend }) => ctx.progress.start(toSend, `${model.name} ${task} prompts`),
                onResult: (e) => ctx.progress.tick(1, e.status === 'failed'),
              });
              if (r.interrupted) throw new Error('interrupted (answers so far are kept; run again to resume)');
              m.prompts += r.prompts;
              cached += r.cached;
              for (const [reason, n] of Object.entries(r.failures)) m.failures[reason] = (m.failures[reason] ?? 0) + n;
              for await (const p of readJsonl<{ key: string }>(file)) keys.add(p.key);
            }
          } finally {
            await answerer.close?.();
          }
          await writeResponseFile(
            join(ctx.dir, modelFolder(model.name), RESPONSES_FILE),
            (function* () {
              for (const row of store.responses({ model: model.name, settings: store.registerSettings(settings) })) {
                if (!keys.has(row.key)) continue;
                if (row.status === 'ok') m.ok++;
                else m.failed++;
                yield toResponseRecord(row);
              }
            })(),
          );
          if (cached > 0) ctx.notice(`${model.name}: ${cached} answers taken from an earlier run`);
          if (m.failed > 0) ctx.notice(`${model.name}: ${m.failed} of ${m.prompts} prompts failed (${Object.keys(m.failures).join(', ') || 'see responses'})`);
          summary.models.push(m);
        }
      } finally {
        store.close();
      }
      return summary;
    },
  };
}
