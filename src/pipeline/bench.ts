/**
 * Pipelines of benchmark plug-ins (a file with a `benchmark:` section): dataset (import) -> prompts ->
 * answer -> score -> report, through the same stage engine, run store and runner as the What'sUp
 * pipeline. Baseline kinds are the plug-in's own (e.g. oracle, random); other kinds come from the
 * answerer registry (openai).
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import '../benchmarks/index.js';
import { benchAnswerer, generateBenchmark, importBenchmark, loadItemSet, scoreModels, writeBenchReport } from '../benchmarks/run.js';
import { benchmarks, judgeOutput, writeBenchPromptFile, type Benchmark, type ResponseLike } from '../benchmarks/index.js';
import type { BenchItem } from '../formats/bench-item.js';
import { isBenchPrompt, type AnyPrompt } from '../formats/prompts.js';
import { readBenchPrompts } from '../formats/chat-prompt.js';
import { RunStore, runPrompts, toResponseRecord, type GenerationSettings } from '../mllm/index.js';
import { tableText } from '../report/bench-page.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { writeJsonAtomic, writeJsonlAtomic } from '../util/fs.js';
import { readJsonlAll } from '../util/jsonl.js';
import { Model, modelFolder } from '../formats/pipeline.js';
import { runStages, type Stage } from './engine.js';
import { parsePipelineText } from '../formats/pipeline-file.js';
import { PipelineProgress } from './progress.js';

/** A model entry as in the What'sUp pipelines, without the What'sUp-only keys. */
const BenchModel = Model.omit({ box_format: true, templates: true, tasks: true }).extend({
  /** A baseline of the benchmark (oracle, random, ...) or an answerer kind (openai). */
  kind: z.string().min(1),
  /** JSON-schema structured outputs for prompts that carry one (openai): auto, on or off. */
  structured_outputs: z.enum(['auto', 'on', 'off']).optional(),
  /** Answers asked per prompt while the output is invalid (default: the benchmark's, else 1). */
  answer_attempts: z.number().int().min(1).max(100).optional(),
});

export const BenchPipelineSchema = z.strictObject({
  name: Model.shape.name,
  description: z.string().optional(),
  out: z.string().min(1),
  benchmark: z.strictObject({
    /** Registered benchmark name. */
    name: z.string().min(1),
    /** The benchmark's published copy (for importers). */
    root: z.string().min(1).optional(),
    /** Generation settings (procedural benchmarks), as the plug-in documents them; instead of `root`. */
    generate: z.record(z.string(), z.unknown()).optional(),
    /** Prompt settings, as the plug-in documents them. */
    prompts: z.record(z.string(), z.unknown()).default({}),
  }).refine((b) => (b.root === undefined) !== (b.generate === undefined), { message: 'give either root (a published copy) or generate (settings), not both' }),
  models: z.array(BenchModel).default([]),
  report: z.strictObject({
    title: z.string().min(1).optional(),
    file: z.string().min(1).default('report.html'),
    /** The plug-in's analysis settings (e.g. SVAT's test alternative), as it documents them. */
    analysis: z.record(z.string(), z.unknown()).optional(),
  }).prefault({}),
});
export type BenchPipelineConfig = z.infer<typeof BenchPipelineSchema>;

/** True when the YAML file has a top-level `benchmark` key. */
export async function isBenchPipeline(file: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return false; // the regular loader reports the problem
  }
  const raw = parseDocument(text).toJS() as unknown;
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && 'benchmark' in raw;
}

export async function loadBenchPipeline(file: string, env: NodeJS.ProcessEnv = process.env) {
  const text = await readFile(file, 'utf8');
  const { config, skippedModels } = parsePipelineText(BenchPipelineSchema, text, file, env);
  const base = dirname(resolve(file));
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const b = benchmarks.get(config.benchmark.name); // unknown names fail here, with the list
  if (config.benchmark.generate && !b.generateItems) throw new GsrError(`${file}: benchmark ${b.name} has no generator (give root)`);
  if (config.benchmark.root && !b.importItems) throw new GsrError(`${file}: benchmark ${b.name} has no importer (give generate)`);
  for (const m of config.models) {
    const n = answerAttemptsOf(m, b);
    if (b.maxAnswerAttempts !== undefined && n > b.maxAnswerAttempts) {
      throw new GsrError(`${file}: model ${m.name}: answer_attempts ${n} is above ${b.name}'s limit of ${b.maxAnswerAttempts} (its official protocol does not ask again)`);
    }
  }
  const root = config.benchmark.root === undefined ? undefined : abs(config.benchmark.root);
  return { file: resolve(file), config: { ...config, out: abs(config.out), benchmark: { ...config.benchmark, root } }, skippedModels };
}

const PROMPTS_FILE = 'prompts.jsonl';
const RESPONSES_FILE = 'responses.jsonl';

/** A model's temperature and max_tokens: its own, else the plug-in's protocol defaults (temperature 0). */
function requestOf(m: BenchPipelineConfig['models'][number], b: Benchmark): { temperature: number; max_tokens?: number } {
  return { temperature: m.temperature ?? b.requestDefaults?.temperature ?? 0, max_tokens: m.max_tokens ?? b.requestDefaults?.max_tokens };
}

function generation(m: BenchPipelineConfig['models'][number], b: Benchmark, answerAttempts: number): GenerationSettings {
  const s: GenerationSettings = { answerer: m.kind, model: m.name, endpoint_model: m.model ?? m.name, ...requestOf(m, b), seed: m.seed };
  if (m.kind === 'openai') s.base_url = m.base_url;
  if (m.structured_outputs) s.structured_outputs = m.structured_outputs;
  // Only when above 1, so runs that ask once keep their settings ids.
  if (answerAttempts > 1) s.answer_attempts = answerAttempts;
  return s;
}

/** The answers asked per prompt for a model: its own setting, else the plug-in's default, else 1. */
function answerAttemptsOf(m: BenchPipelineConfig['models'][number], b: Benchmark): number {
  return m.answer_attempts ?? b.answerAttempts ?? 1;
}

/** Why an output is invalid in the benchmark's first mode, or null (a judge that throws: invalid). */
function validator(b: Benchmark, items: ReadonlyMap<string, BenchItem>) {
  return (p: AnyPrompt, output: string): string | null => {
    const item = items.get(p.item);
    if (item === undefined || !isBenchPrompt(p)) return null;
    try {
      const j = judgeOutput(b, item, p, output, b.modes[0]);
      return j.valid ? null : (j.reason ?? 'invalid');
    } catch (err) {
      return `judge failed: ${errorMessage(err)}`;
    }
  };
}

/**
 * The code of every benchmark stage: this module and what it imports, every plug-in included (a
 * plug-in's hooks cannot be told apart by module), so any benchmark code change reruns them all.
 */
const BENCH_CODE = [import.meta.url];

export function benchStages(config: BenchPipelineConfig): Stage[] {
  const b = config.benchmark;
  const stages: Stage[] = [
    b.generate !== undefined
      ? {
        name: 'dataset', after: [], settings: { benchmark: b.name, generate: b.generate },
        run: async (ctx) => {
          let started = false;
          return generateBenchmark(b.name, b.generate!, ctx.dir, (_done, total) => {
            if (!started) ctx.progress.start(total, 'items');
            started = true;
            ctx.progress.tick(1);
          });
        },
      }
      : {
        name: 'dataset', after: [], settings: { benchmark: b.name, root: b.root },
        run: async (ctx) => importBenchmark(b.name, b.root!, ctx.dir),
      },
    {
      name: 'prompts', after: ['dataset'], settings: b.prompts,
      async run(ctx) {
        const set = await loadItemSet(ctx.input('dataset'));
        const s = await writeBenchPromptFile(set.benchmark, set.items.values(), b.prompts, set.context, join(ctx.dir, PROMPTS_FILE));
        for (const k of s.skipped.slice(0, 5)) ctx.notice(`prompts: item ${k.item} skipped: ${k.reason}`);
        if (s.prompts === 0) throw new GsrError(`no prompts were built (${s.skipped.length} items skipped${s.skipped[0] ? `; first: ${s.skipped[0].reason}` : ''})`);
        return { ...s, skipped: s.skipped.length };
      },
    },
    {
      name: 'answer', after: ['dataset', 'prompts'],
      // The answer attempts in force (the plug-in's default included) shape the answers; 1 is left out.
      settings: config.models.map((m) => {
        const attempts = answerAttemptsOf(m, benchmarks.get(b.name));
        return { ...m, concurrency: undefined, timeout_ms: undefined, answer_attempts: attempts > 1 ? attempts : undefined };
      }),
      async run(ctx) {
        const set = await loadItemSet(ctx.input('dataset'));
        const promptFile = join(ctx.input('prompts'), PROMPTS_FILE);
        const keys = new Set((await readBenchPrompts(promptFile)).map((p) => p.key));
        const store = RunStore.open(join(ctx.stateDir, 'store.sqlite'));
        const models = [];
        try {
          for (const m of config.models) {
            const answerAttempts = answerAttemptsOf(m, set.benchmark);
            const settings = generation(m, set.benchmark, answerAttempts);
            const answerer = await benchAnswerer(set.benchmark, set.items, m.kind, {
              model: m.model ?? m.name, baseUrl: m.base_url, apiKeyEnv: m.api_key_env, timeoutMs: m.timeout_ms,
              temperature: settings.temperature, maxTokens: settings.max_tokens, seed: m.seed, structuredOutputs: m.structured_outputs,
            });
            let r;
            try {
              r = await runPrompts({
                prompts: promptFile, store, answerer, settings, concurrency: m.concurrency, timeoutMs: m.timeout_ms, signal: ctx.signal,
                answerAttempts, validate: validator(set.benchmark, set.items),
                onStart: ({ toSend }) => ctx.progress.start(toSend, `${m.name} prompts`),
                onResult: (e) => ctx.progress.tick(1, e.status === 'failed'),
              });
            } finally {
              await answerer.close?.();
            }
            if (r.interrupted) throw new Error('interrupted (answers so far are kept; run again to resume)');
            const sid = store.registerSettings(settings);
            const reasked = answerAttempts > 1 ? store.attemptCounts(m.name, sid) : undefined;
            const rows = [...store.responses({ model: m.name, settings: sid })].filter((row) => keys.has(row.key)).map((row) => {
              const record = toResponseRecord(row);
              return reasked ? { ...record, answer_attempts: (reasked.get(row.key) ?? 0) + 1 } : record;
            });
            await writeJsonlAtomic(join(ctx.dir, modelFolder(m.name), RESPONSES_FILE), rows);
            const failed = rows.filter((x) => x.status === 'failed').length;
            if (failed > 0) ctx.notice(`${m.name}: ${failed} of ${keys.size} prompts failed (${Object.keys(r.failures).join(', ') || 'see responses'})`);
            const attempts = reasked ? { answer_attempts: answerAttempts, reasked: rows.reduce((a, row) => a + (reasked.get(row.key) ?? 0), 0) } : {};
            // Answers an earlier run left in the store are told, not recorded (see stages/answer.ts).
            if (r.cached > 0) ctx.notice(`${m.name}: ${r.cached} answers taken from an earlier run`);
            models.push({ name: m.name, kind: m.kind, prompts: keys.size, ok: rows.length - failed, failed, ...attempts });
          }
        } finally {
          store.close();
        }
        return { models };
      },
    },
    {
      name: 'score', after: ['dataset', 'prompts', 'answer'], settings: {},
      async run(ctx) {
        const set = await loadItemSet(ctx.input('dataset'));
        const prompts = await readBenchPrompts(join(ctx.input('prompts'), PROMPTS_FILE));
        const responses = new Map<string, ResponseLike[]>();
        for (const m of config.models) responses.set(m.name, await readJsonlAll<ResponseLike>(join(ctx.input('answer'), modelFolder(m.name), RESPONSES_FILE)));
        const scores = scoreModels(set.benchmark, set.items, prompts, responses);
        await writeJsonlAtomic(join(ctx.dir, 'scores.jsonl'), scores.scored);
        await writeJsonAtomic(join(ctx.dir, 'cells.json'), scores.cells);
        return { responses: scores.scored.length, cells: scores.cells.length };
      },
    },
    {
      name: 'report', after: ['dataset', 'prompts', 'answer', 'score'], settings: { title: config.report.title, file: config.report.file, analysis: config.report.analysis },
      async run(ctx) {
        const set = await loadItemSet(ctx.input('dataset'));
        const prompts = await readBenchPrompts(join(ctx.input('prompts'), PROMPTS_FILE));
        const scored = await readJsonlAll<never>(join(ctx.input('score'), 'scores.jsonl'));
        const cells = JSON.parse(await readFile(join(ctx.input('score'), 'cells.json'), 'utf8'));
        const outputs = new Map<string, string>();
        for (const m of config.models) {
          for (const r of await readJsonlAll<ResponseLike>(join(ctx.input('answer'), modelFolder(m.name), RESPONSES_FILE))) outputs.set(`${m.name}\0${r.key}`, r.output);
        }
        const analysis = await writeBenchReport(set.benchmark, join(ctx.dir, config.report.file), { items: set.items, prompts, scores: { scored, cells }, outputs, title: config.report.title, analysis: config.report.analysis });
        await writeJsonAtomic(join(ctx.dir, 'analysis.json'), analysis ?? null);
        return { file: config.report.file, tables: set.benchmark.tables(cells, analysis).map(tableText) };
      },
    },
  ];
  return stages.map((s) => ({ ...s, code: BENCH_CODE }));
}

/** What `runBenchPipeline` takes (the fields of run.ts's PipelineRunOptions it uses). */
export interface BenchRunOptions {
  out?: string;
  force?: boolean;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** Loads and runs a benchmark pipeline; the result has the shape of run.ts's PipelineResult. */
export async function runBenchPipeline(file: string, options: BenchRunOptions = {}) {
  const started = Date.now();
  const loaded = await loadBenchPipeline(file, options.env);
  const config = options.out ? { ...loaded.config, out: resolve(options.out) } : loaded.config;
  const stages = benchStages(config);
  const progress = new PipelineProgress(stages.length, options.log ? (l) => options.log!(l) : undefined);
  for (const m of loaded.skippedModels) progress.line(`model ${m.name} skipped (${m.reason})`);
  let outcomes;
  try {
    outcomes = await runStages(stages, { out: config.out, force: options.force, progress, signal: options.signal });
  } catch (err) {
    throw err instanceof GsrError ? err : new GsrError(errorMessage(err));
  }
  const report = outcomes.find((o) => o.name === 'report')?.record.summary as { file: string; tables: string[] } | undefined;
  return {
    name: config.name, out: config.out, stages: outcomes.map((o) => ({ name: o.name, status: o.status, seconds: o.seconds })),
    seconds: (Date.now() - started) / 1000, perception: null, skipped_models: loaded.skippedModels, rows: [] as never[], warnings: [], regression: null,
    report: report ? join(config.out, 'report', report.file) : null, tables: report?.tables,
  };
}
