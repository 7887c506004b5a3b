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
import { answerAttemptsFor, benchAnswerer, benchValidator, CELLS_FILE, CONTEXT_FILE, copyItemSet, generateBenchmark, importBenchmark, ITEMS_FILE, loadItemSet, SCORES_FILE, scoreModels, writeBenchReport, writeBenchScores, writeItemSet } from '../benchmarks/run.js';
import { benchmarks, episodeUnparsed, runEpisodes, scoredUnparsed, unparsedWarnings, writeBenchPromptFile, type Benchmark, type RefineAnswer, type ResponseLike } from '../benchmarks/index.js';
import { readEpisodes, writeEpisodes, type EpisodeRecord } from '../formats/episodes.js';
import type { BenchItem } from '../formats/bench-item.js';
import { readBenchPrompts, writeBenchPrompts } from '../formats/chat-prompt.js';
import { failureLines, stageFailures, type FailureSources } from './summary.js';
import { answerers, requestOptions, resolveRequest, RunStore, runPrompts, runSettings, StoredAsker, toResponseRecord, type AnswererOptions } from '../mllm/index.js';
import { sha256File } from '../util/hash.js';
import { tableText } from '../report/bench-page.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { writeJsonAtomic, writeJsonlAtomic } from '../util/fs.js';
import { readJsonlAll } from '../util/jsonl.js';
import { endpointsOf, endpointUrls, Model, modelFolder } from '../formats/pipeline.js';
import { runStages, type Stage } from './engine.js';
import { ASKING_STOPS, askModel, forceAskAgain, RESPONSES_FILE, type AskedModel } from './ask.js';
import { parsePipelineText, typedBySchema } from '../formats/pipeline-file.js';
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
    /** An item set written earlier (items.jsonl and context.json, e.g. by `gsr dataset synth`); instead of `root`. */
    items: z.string().min(1).optional(),
    /** Prompt settings, as the plug-in documents them. */
    prompts: z.record(z.string(), z.unknown()).default({}),
    /** Episode settings of an episodic plug-in, as it documents them. */
    episodes: z.record(z.string(), z.unknown()).optional(),
    /** Metric settings of an episodic plug-in, as it documents them. */
    metrics: z.record(z.string(), z.unknown()).optional(),
    /**
     * An optional model pass over the items before they are used (ET-Plan-Bench: common-sense filtering
     * and rephrasing): `model` is an endpoint entry as under `models`; the other keys are the plug-in's.
     */
    refine: z.object({ model: BenchModel }).catchall(z.unknown()).optional(),
  }).refine((b) => [b.root, b.generate, b.items].filter((x) => x !== undefined).length === 1, { message: 'give one of root (a published copy), generate (settings) or items (an item set folder)' }),
  models: z.array(BenchModel).default([]),
  report: z.strictObject({
    title: z.string().min(1).optional(),
    file: z.string().min(1).default('report.html'),
    /** Episodic plug-ins: the item whose episodes the report replays step by step. */
    replay: z.string().min(1).optional(),
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
  const { config, skippedModels, fromEnv } = parsePipelineText(BenchPipelineSchema, text, file, env);
  const base = dirname(resolve(file));
  // As in formats/pipeline-file.ts: a path from an environment variable is relative to the working directory.
  const abs = (p: string, where: string) => (isAbsolute(p) ? p : resolve(fromEnv.has(where) ? process.cwd() : base, p));
  const b = benchmarks.get(config.benchmark.name); // unknown names fail here, with the list
  if (config.benchmark.generate && !b.generateItems) throw new GsrError(`${file}: benchmark ${b.name} has no generator (give root)`);
  if (config.benchmark.root && !b.importItems) throw new GsrError(`${file}: benchmark ${b.name} has no importer (give generate or items)`);
  checkEpisodic(file, b, config);
  for (const m of config.models) answerAttemptsFor(b, m.answer_attempts, `${file}: model ${m.name}`);
  const root = config.benchmark.root === undefined ? undefined : abs(config.benchmark.root, 'benchmark.root');
  const items = config.benchmark.items === undefined ? undefined : abs(config.benchmark.items, 'benchmark.items');
  // `${VAR}` fills in the plug-in's own sections come as text: typed by its schemas, so the stage settings match a file that writes the number.
  const { generate: generateSchema, prompts: promptsSchema } = b.settingsSchemas ?? {};
  const generate = generateSchema && config.benchmark.generate ? typedBySchema(generateSchema, config.benchmark.generate) : config.benchmark.generate;
  const prompts = promptsSchema ? typedBySchema(promptsSchema, config.benchmark.prompts) : config.benchmark.prompts;
  return { file: resolve(file), config: { ...config, out: abs(config.out, 'out'), benchmark: { ...config.benchmark, root, items, generate, prompts } }, skippedModels };
}

/** Episode, metric and refine settings are checked when the file loads; only episodic plug-ins take them. */
function checkEpisodic(file: string, b: Benchmark, config: BenchPipelineConfig): void {
  const { episodes, metrics, refine } = config.benchmark;
  if (refine !== undefined) {
    if (b.refine === undefined) throw new GsrError(`${file}: benchmark ${b.name} has no refine stage`);
    const { model, ...settings } = refine;
    try {
      b.refine.parseSettings(settings);
    } catch (err) {
      throw new GsrError(`${file}: ${errorMessage(err)}`);
    }
    if (!answerers.has(model.kind)) throw new GsrError(`${file}: benchmark.refine.model: unknown answerer kind "${model.kind}" (answerers: ${answerers.names().join(', ')})`);
  }
  const hooks = b.episodes;
  if (hooks === undefined) {
    if (episodes !== undefined || metrics !== undefined || refine !== undefined || config.report.replay !== undefined) throw new GsrError(`${file}: benchmark ${b.name} is not episodic (episodes, metrics, refine and report.replay are for episodic benchmarks)`);
    return;
  }
  if (config.report.analysis !== undefined) throw new GsrError(`${file}: benchmark ${b.name} is episodic: its analysis settings are benchmark.metrics, not report.analysis`);
  try {
    hooks.parseSettings(episodes ?? {});
    hooks.parseMetrics(metrics ?? {});
  } catch (err) {
    throw new GsrError(`${file}: ${errorMessage(err)}`);
  }
  for (const m of config.models) {
    if (!Object.hasOwn(hooks.policies, m.kind) && !answerers.has(m.kind)) {
      throw new GsrError(`${file}: model ${m.name}: unknown kind "${m.kind}" (${b.name}'s baselines: ${Object.keys(hooks.policies).join(', ')}; answerers: ${answerers.names().join(', ')})`);
    }
  }
}

const PROMPTS_FILE = 'prompts.jsonl';

type BenchModelConfig = BenchPipelineConfig['models'][number];

/**
 * A model entry's answerer options: its own request settings, else the plug-in's protocol defaults,
 * else the shared ones (src/mllm/request.ts).
 */
function optionsOf(m: BenchModelConfig, b: Benchmark): AnswererOptions {
  const request = resolveRequest({ temperature: m.temperature, max_tokens: m.max_tokens, top_p: m.top_p, seed: m.seed }, b.requestDefaults);
  return { model: m.model ?? m.name, endpoints: endpointsOf(m.base_url), apiKeyEnv: m.api_key_env, timeoutMs: m.timeout_ms, ...requestOptions(request), structuredOutputs: m.structured_outputs, maxAnswerBytes: m.max_answer_bytes };
}

/** A model entry's answerer and the settings its answers are stored under. */
function modelAsker(set: { benchmark: Benchmark; items: ReadonlyMap<string, BenchItem> }, m: BenchModelConfig, answerAttempts: number) {
  const options = optionsOf(m, set.benchmark);
  const extra: Record<string, unknown> = {};
  if (m.structured_outputs) extra.structured_outputs = m.structured_outputs;
  // Only when above 1, so runs that ask once keep their settings ids.
  if (answerAttempts > 1) extra.answer_attempts = answerAttempts;
  return { settings: runSettings(m.kind, m.name, options, extra), answerer: () => benchAnswerer(set.benchmark, set.items, m.kind, options) };
}

/** The answers asked per prompt for a model: its own setting, else the plug-in's default, else 1 (checked when the file loads). */
function answerAttemptsOf(m: BenchModelConfig, b: Benchmark): number {
  return answerAttemptsFor(b, m.answer_attempts, `model ${m.name}`);
}

/** The dataset stage: a generated set, an item set folder taken as it is, or an imported copy. */
function datasetStage(config: BenchPipelineConfig): Stage {
  const b = config.benchmark;
  if (b.items !== undefined) {
    const dir = b.items;
    return {
      name: 'dataset', after: [], settings: { benchmark: b.name, items: dir },
      // The set's own files: a changed item set reruns the pipeline.
      fingerprint: async () => ({ items: await sha256File(join(dir, ITEMS_FILE), 'items file'), context: await sha256File(join(dir, CONTEXT_FILE), 'context file').catch(() => null) }),
      run: async (ctx) => copyItemSet(dir, ctx.dir),
    };
  }
  if (b.generate !== undefined) {
    return {
      name: 'dataset', after: [], settings: { benchmark: b.name, generate: b.generate },
      run: async (ctx) => {
        let started = false;
        return generateBenchmark(b.name, b.generate!, ctx.dir, (_done, total) => {
          if (!started) ctx.progress.start(total, 'items');
          started = true;
          ctx.progress.tick(1);
        });
      },
    };
  }
  return {
    name: 'dataset', after: [], settings: { benchmark: b.name, root: b.root },
    run: async (ctx) => importBenchmark(b.name, b.root!, ctx.dir),
  };
}

/**
 * The code of every benchmark stage: this module and what it imports, every plug-in included (a
 * plug-in's hooks cannot be told apart by module), so any benchmark code change reruns them all.
 */
const BENCH_CODE = [import.meta.url];

export function benchStages(config: BenchPipelineConfig): Stage[] {
  const b = config.benchmark;
  if (benchmarks.get(b.name).episodes !== undefined) return episodicStages(config).map((s) => ({ ...s, code: BENCH_CODE }));
  const stages: Stage[] = [
    datasetStage(config),
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
        return { ...m, base_url: endpointUrls(m.base_url), concurrency: undefined, timeout_ms: undefined, answer_attempts: attempts > 1 ? attempts : undefined };
      }),
      stopping: ASKING_STOPS,
      async run(ctx) {
        const set = await loadItemSet(ctx.input('dataset'));
        const promptFile = join(ctx.input('prompts'), PROMPTS_FILE);
        const store = RunStore.open(join(ctx.stateDir, 'store.sqlite'));
        const models = [];
        try {
          for (const m of config.models) {
            const answerAttempts = answerAttemptsOf(m, set.benchmark);
            const asker = modelAsker(set, m, answerAttempts);
            const answerer = await asker.answerer();
            let r: AskedModel;
            try {
              // The What'sUp pipeline's answer step (./ask.ts), with the plug-in's validator.
              r = await askModel(ctx, {
                store, answerer, settings: asker.settings, dir: join(ctx.dir, modelFolder(m.name)), concurrency: m.concurrency, timeoutMs: m.timeout_ms,
                answerAttempts, validate: benchValidator(set.benchmark, set.items), prompts: [{ file: promptFile, label: `${m.name} prompts` }],
              });
            } finally {
              await answerer.close?.();
            }
            const attempts = r.answer_attempts === undefined ? {} : { answer_attempts: r.answer_attempts, reasked: r.reasked };
            models.push({ name: m.name, kind: m.kind, prompts: r.prompts, ok: r.ok, failed: r.failed, ...attempts });
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
        await writeBenchScores(ctx.dir, scores);
        const warnings = unparsedWarnings(set.benchmark.name, scoredUnparsed(scores.scored));
        for (const w of warnings) ctx.notice(`warning: ${w}`);
        return { responses: scores.scored.length, cells: scores.cells.length, warnings };
      },
    },
    {
      name: 'report', after: ['dataset', 'prompts', 'answer', 'score'], settings: { title: config.report.title, file: config.report.file, analysis: config.report.analysis },
      async run(ctx) {
        const set = await loadItemSet(ctx.input('dataset'));
        const prompts = await readBenchPrompts(join(ctx.input('prompts'), PROMPTS_FILE));
        const scored = await readJsonlAll<never>(join(ctx.input('score'), SCORES_FILE));
        const cells = JSON.parse(await readFile(join(ctx.input('score'), CELLS_FILE), 'utf8'));
        const outputs = new Map<string, string>();
        for (const m of config.models) {
          for (const r of await readJsonlAll<ResponseLike>(join(ctx.input('answer'), modelFolder(m.name), RESPONSES_FILE))) outputs.set(`${m.name}\0${r.key}`, r.output);
        }
        const analysis = await writeBenchReport(set.benchmark, join(ctx.dir, config.report.file), { items: set.items, prompts, scores: { scored, cells }, outputs, title: config.report.title, analysis: config.report.analysis });
        await writeJsonAtomic(join(ctx.dir, 'analysis.json'), analysis ?? null);
        const notes = set.benchmark.notes?.(set.items) ?? [];
        for (const n of notes) ctx.notice(`warning: ${n}`);
        return { file: config.report.file, tables: set.benchmark.tables(cells, analysis).map(tableText), notes };
      },
    },
  ];
  return stages.map((s) => ({ ...s, code: BENCH_CODE }));
}

const EPISODES_FILE = 'episodes.jsonl';

/**
 * The refine stage: one prompt per item (the plug-in's), asked through the runner and the run store in
 * `.state/refine/store.sqlite` (cached, resumable), then the plug-in's `apply` writes the item set
 * the later stages use (items.jsonl, context.json), beside prompts.jsonl and responses.jsonl. A reply
 * that cannot be read is counted by the plug-in, never fatal; a failed request keeps its item.
 */
function refineStage(refine: NonNullable<BenchPipelineConfig['benchmark']['refine']>): Stage {
  const { model: m, ...raw } = refine;
  return {
    name: 'refine', after: ['dataset'], stopping: ASKING_STOPS, settings: { ...raw, model: { ...m, concurrency: undefined, timeout_ms: undefined } },
    async run(ctx) {
      const set = await loadItemSet(ctx.input('dataset'));
      const hooks = set.benchmark.refine;
      if (hooks === undefined) throw new GsrError(`benchmark ${set.benchmark.name} has no refine stage`);
      const settings = hooks.parseSettings(raw);
      const prompts = hooks.prompts(set.items.values(), settings);
      const promptFile = join(ctx.dir, PROMPTS_FILE);
      await writeBenchPrompts(promptFile, prompts);
      const asker = modelAsker(set, m, 1);
      const generationSettings = asker.settings;
      const store = RunStore.open(join(ctx.stateDir, 'store.sqlite'));
      try {
        forceAskAgain(ctx, store, generationSettings);
        const answerer = await asker.answerer();
        let r;
        try {
          r = await runPrompts({
            prompts: promptFile, store, answerer, settings: generationSettings, concurrency: m.concurrency, timeoutMs: m.timeout_ms, signal: ctx.signal,
            onStart: ({ toSend }) => ctx.progress.start(toSend, `${m.name} refine prompts`),
            onResult: (e) => ctx.progress.tick(1, e.status === 'failed'),
          });
        } finally {
          await answerer.close?.();
        }
        if (r.interrupted) throw new Error('interrupted (answers so far are kept; run again to resume)');
        const sid = store.registerSettings(generationSettings);
        const answers = new Map<string, RefineAnswer>();
        const rows = [];
        for (const p of prompts) {
          const row = store.response(p.key, m.name, sid);
          if (row === undefined) continue;
          answers.set(p.item, { status: row.status, output: row.output, error: row.error });
          rows.push(toResponseRecord(row));
        }
        await writeJsonlAtomic(join(ctx.dir, RESPONSES_FILE), rows);
        const out = hooks.apply({ items: [...set.items.values()], context: set.context }, answers, settings, m.name);
        if (out.summary.failed > 0) ctx.notice(`refine: ${out.summary.failed} requests failed; their items are kept unchanged (gsr pipeline run --force asks them again)`);
        for (const line of out.problems.slice(0, 5)) ctx.notice(`refine: ${line}`);
        if (out.problems.length > 5) ctx.notice(`refine: ${out.problems.length - 5} more replies not used (refine/items.jsonl, field refined)`);
        if (out.set.items.length === 0) throw new GsrError(`refine: no item was kept (${Object.entries(out.summary).map(([k, n]) => `${k} ${n}`).join(', ')})`);
        await writeItemSet(set.benchmark.name, out.set, ctx.dir);
        return { ...out.summary, cached: r.cached, requests: r.requests };
      } finally {
        store.close();
      }
    },
  };
}

/**
 * The stages of an episodic plug-in: dataset -> episodes -> score -> report. The episodes stage runs
 * every model's episodes (baselines act directly; models answer each step through the run store in
 * `.state/episodes/store.sqlite`, so a rerun after a kill replays the answers it has) and writes
 * `<model>/episodes.jsonl`; score writes the plug-in's cells and analysis.
 */
function episodicStages(config: BenchPipelineConfig): Stage[] {
  const b = config.benchmark;
  const episodeSettings = b.episodes ?? {};
  // With a refine stage, the later stages take its item set instead of the dataset's.
  const itemsFrom = b.refine === undefined ? 'dataset' : 'refine';
  const readAll = async (dir: string) => {
    const out = new Map<string, EpisodeRecord[]>();
    for (const m of config.models) out.set(m.name, await readEpisodes(join(dir, m.name, EPISODES_FILE)));
    return out;
  };
  return [
    datasetStage(config),
    ...(b.refine === undefined ? [] : [refineStage(b.refine)]),
    {
      name: 'episodes', after: [itemsFrom], stopping: 'finishing the steps in flight (answers so far are kept)',
      settings: { episodes: episodeSettings, models: config.models.map((m) => ({ ...m, concurrency: undefined, timeout_ms: undefined })) },
      async run(ctx) {
        const set = await loadItemSet(ctx.input(itemsFrom));
        const hooks = set.benchmark.episodes;
        if (hooks === undefined) throw new GsrError(`benchmark ${set.benchmark.name} is not episodic`);
        const start = await hooks.prepare(set.items, hooks.parseSettings(episodeSettings), set.context);
        const store = RunStore.open(join(ctx.stateDir, 'store.sqlite'));
        const models = [];
        try {
          for (const m of config.models) {
            const policy = Object.hasOwn(hooks.policies, m.kind) ? hooks.policies[m.kind] : undefined;
            const asker = modelAsker(set, m, 1);
            const settings = asker.settings;
            if (!policy) forceAskAgain(ctx, store, settings);
            const answerer = policy ? undefined : await asker.answerer();
            const actor = policy
              ? { policy: policy(set.items, { name: m.name, seed: m.seed ?? 0 }) }
              : { asker: new StoredAsker({ store, answerer: answerer!, settings, timeoutMs: m.timeout_ms }) };
            ctx.progress.start(set.items.size, `${m.name} episodes`);
            let r;
            try {
              r = await runEpisodes({ benchmark: set.benchmark, items: set.items, start, model: m.name, actor, concurrency: m.concurrency, signal: ctx.signal, onEpisode: (e) => ctx.progress.tick(1, e.status === 'failed') });
            } finally {
              await answerer?.close?.();
            }
            if (r.summary.interrupted) throw new Error('interrupted (answers so far are kept; run again to resume)');
            await writeEpisodes(join(ctx.dir, m.name, EPISODES_FILE), r.records);
            for (const k of r.summary.skipped.slice(0, 5)) ctx.notice(`${m.name}: item ${k.item} skipped: ${k.reason}`);
            if (r.summary.failed > 0) ctx.notice(`${m.name}: ${r.summary.failed} episodes stopped by a failed request (gsr pipeline run --force asks them again)`);
            models.push({ name: m.name, kind: m.kind, ...r.summary, skipped: r.summary.skipped.length, interrupted: undefined });
          }
        } finally {
          store.close();
        }
        return { models };
      },
    },
    {
      name: 'score', after: [itemsFrom, 'episodes'], settings: { metrics: b.metrics ?? {} },
      async run(ctx) {
        const set = await loadItemSet(ctx.input(itemsFrom));
        const hooks = set.benchmark.episodes!;
        const episodes = await readAll(ctx.input('episodes'));
        const { cells, analysis } = hooks.score(set.items, episodes, hooks.parseMetrics(b.metrics ?? {}));
        await writeJsonAtomic(join(ctx.dir, 'cells.json'), cells);
        await writeJsonAtomic(join(ctx.dir, 'analysis.json'), analysis);
        const warnings = unparsedWarnings(`${set.benchmark.name} step`, episodeUnparsed(episodes));
        for (const w of warnings) ctx.notice(`warning: ${w}`);
        return { cells: cells.length, warnings };
      },
    },
    {
      name: 'report', after: [itemsFrom, 'episodes', 'score'], settings: { title: config.report.title, file: config.report.file, replay: config.report.replay },
      async run(ctx) {
        const set = await loadItemSet(ctx.input(itemsFrom));
        const cells = JSON.parse(await readFile(join(ctx.input('score'), 'cells.json'), 'utf8'));
        const analysis = JSON.parse(await readFile(join(ctx.input('score'), 'analysis.json'), 'utf8')) as unknown;
        await writeBenchReport(set.benchmark, join(ctx.dir, config.report.file), {
          items: set.items, prompts: [], scores: { scored: [], cells }, outputs: new Map(), title: config.report.title, computed: analysis,
          episodes: { episodes: await readAll(ctx.input('episodes')), episodeSettings, replayItem: config.report.replay },
        });
        return { file: config.report.file, tables: set.benchmark.tables(cells, analysis).map(tableText) };
      },
    },
  ];
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
  const report = outcomes.find((o) => o.name === 'report')?.record.summary as { file: string; tables: string[]; notes?: string[] } | undefined;
  // Kept with the score stage's record, so a rerun that skips the stage still warns.
  const scored = outcomes.find((o) => o.name === 'score')?.record.summary as { warnings?: string[] } | undefined;
  return {
    name: config.name, out: config.out, stages: outcomes.map((o) => ({ name: o.name, status: o.status, seconds: o.seconds })),
    seconds: (Date.now() - started) / 1000, perception: null, skipped_models: loaded.skippedModels, rows: [] as never[], warnings: [...(report?.notes ?? []), ...(scored?.warnings ?? [])], regression: null,
    report: report ? join(config.out, 'report', report.file) : null, tables: report?.tables,
    ...(() => {
      const failed = stageFailures({ answer: outcomes.find((o) => o.name === 'answer')?.record.summary as FailureSources['answer'] });
      return { failed_items: failed, item_notes: failureLines(failed) };
    })(),
  };
}
