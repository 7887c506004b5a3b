/**
 * The steps around a plug-in, shared by the CLI and the pipeline: import an item set into a folder,
 * read it back, answer with a baseline or a model through the cached runner, score, and write the
 * report page.
 */
import { existsSync } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readBenchItems, writeBenchItems, type BenchItem } from '../formats/bench-item.js';
import type { BenchPrompt } from '../formats/chat-prompt.js';
import { isBenchPrompt, type AnyPrompt } from '../formats/prompts.js';
import { answerers, type Answerer, type AnswererOptions } from '../mllm/index.js';
import { renderBenchPage } from '../report/bench-page.js';
import { confinedRealPath } from '../util/confined.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { writeFileAtomic, writeJsonAtomic, writeJsonlAtomic } from '../util/fs.js';
import { readJsonFile } from '../util/jsonl.js';
import { benchmarks } from './registry.js';
import { judgeOutput, scoreCells, scoreResponses, type ResponseLike } from './score.js';
import type { Benchmark, ItemSet, ReportInput, ScoreCell, ScoredResponse } from './types.js';

export const ITEMS_FILE = 'items.jsonl';
export const CONTEXT_FILE = 'context.json';

export interface ImportSummary {
  benchmark: string;
  out: string;
  items: number;
  /** Items per task and level. */
  counts: Record<string, Record<string, number>>;
}

export function countItems(items: Iterable<BenchItem>): ImportSummary['counts'] {
  const counts: ImportSummary['counts'] = {};
  for (const i of items) (counts[i.task] ??= {})[i.level] = (counts[i.task][i.level] ?? 0) + 1;
  return counts;
}

/**
 * Imports a published copy into `outDir` (items.jsonl and context.json). The import reads
 * everything before writing anything, and a failed write removes what it wrote.
 */
export async function importBenchmark(name: string, root: string, outDir: string, onProgress?: (done: number, total: number) => void): Promise<ImportSummary> {
  const b = benchmarks.get(name);
  if (!b.importItems) throw new GsrError(`benchmark ${name} has no importer${b.generateItems ? ' (it is generated: gsr dataset synth ' + name + ')' : ''}`);
  const set = await b.importItems(root, onProgress);
  await checkImages(b, set, root);
  return writeItemSet(name, set, outDir);
}

/**
 * Every image an imported item's prompts would send (with the plug-in's default prompt settings)
 * must resolve inside the item's root, or the copy's `root` for an item without one: the What'sUp
 * rule (docs/security.md), kept here for every importer, whatever it checked itself. All or nothing,
 * like the import. Items whose prompts need settings are left to the prompt writer, which checks too.
 */
async function checkImages(b: Benchmark, set: ItemSet, root: string): Promise<void> {
  const seen = new Set<string>();
  for (const item of set.items) {
    let drafts;
    try {
      drafts = b.buildPrompts(item, {}, set.context);
    } catch {
      continue;
    }
    for (const d of drafts) {
      for (const p of d.parts) {
        if (p.type !== 'image' || seen.has(p.image)) continue;
        seen.add(p.image);
        await confinedRealPath(p.image, item.root ?? root).catch((err: NodeJS.ErrnoException) => {
          throw new GsrError(`item ${item.id}: ${err instanceof GsrError ? err.message : `cannot read image ${p.image}: ${err.code ?? errorMessage(err)}`}`);
        });
      }
    }
  }
}

/** Writes an item set (context.json, then items.jsonl); a failed write removes the context. */
export async function writeItemSet(name: string, set: ItemSet, outDir: string): Promise<ImportSummary> {
  try {
    await writeJsonAtomic(join(outDir, CONTEXT_FILE), set.context ?? null);
    await writeBenchItems(join(outDir, ITEMS_FILE), set.items);
  } catch (err) {
    await rm(join(outDir, CONTEXT_FILE), { force: true });
    throw err;
  }
  return { benchmark: name, out: outDir, items: set.items.length, counts: countItems(set.items) };
}

/**
 * Generates a procedural benchmark's items into `outDir` (the plug-in writes its images there;
 * items.jsonl and context.json are written last, so a half-finished run leaves no item set).
 */
export async function generateBenchmark(name: string, settings: Record<string, unknown>, outDir: string, onProgress?: (done: number, total: number) => void): Promise<ImportSummary> {
  const b = benchmarks.get(name);
  if (!b.generateItems) throw new GsrError(`benchmark ${name} is not generated (import it with gsr dataset import)`);
  return writeItemSet(name, await b.generateItems({ ...settings, out: outDir }, onProgress), outDir);
}

/**
 * Takes an item set written earlier (items.jsonl and context.json, e.g. by `gsr dataset synth`) into
 * `outDir`: every item is checked by its plug-in, and items without a root get the set's folder as
 * theirs (its real path), so their files are read where they are.
 */
export async function copyItemSet(dir: string, outDir: string): Promise<ImportSummary> {
  const set = await loadItemSet(await realpath(resolve(dir)).catch(() => resolve(dir)));
  return writeItemSet(set.benchmark.name, { items: [...set.items.values()], context: set.context }, outDir);
}

/** Reads an item set back, each item checked by its plug-in; items without `root` get the set's folder. */
export async function loadItemSet(dir: string): Promise<{ benchmark: Benchmark; items: Map<string, BenchItem>; context: unknown }> {
  // The set's own files are read only inside its folder (a link out of it is refused).
  const raw = await readBenchItems(await confinedRealPath(join(dir, ITEMS_FILE), dir).catch(setFileError(join(dir, ITEMS_FILE))));
  if (raw.length === 0) throw new GsrError(`${join(dir, ITEMS_FILE)}: no items`);
  const name = raw[0].benchmark;
  const b = benchmarks.get(name);
  const items = new Map<string, BenchItem>();
  for (const r of raw) {
    if (r.benchmark !== name) throw new GsrError(`${join(dir, ITEMS_FILE)}: items of two benchmarks (${name}, ${r.benchmark})`);
    if (items.has(r.id)) throw new GsrError(`${join(dir, ITEMS_FILE)}: item id ${r.id} appears twice`);
    // An item without a root (a generated set) resolves its paths against its items file's folder.
    items.set(r.id, b.parseItem(r.root === undefined ? { ...r, root: resolve(dir) } : r));
  }
  return { benchmark: b, items, context: await readJsonFile(await confinedRealPath(join(dir, CONTEXT_FILE), dir).catch(setFileError(join(dir, CONTEXT_FILE)))) };
}

/** Words a missing or escaping item-set file as a GsrError. */
const setFileError = (path: string) => (err: NodeJS.ErrnoException): never => {
  if (err instanceof GsrError) throw err;
  throw new GsrError(err.code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path}: ${err.code ?? errorMessage(err)}`);
};

/**
 * An item set for the stage-by-stage commands (`gsr prompts`, `run`, `score --benchmark`): a folder
 * holding `name`'s items.jsonl, or else a folder the plug-in imports (a published copy; What'sUp: a
 * manifest folder), read as a written item set would be. The plug-in must build its prompts before
 * any answer: an episodic one (each prompt depends on the last answer) runs only as a pipeline.
 */
export async function loadBenchmarkItems(name: string, dir: string): Promise<{ benchmark: Benchmark; items: Map<string, BenchItem>; context: unknown }> {
  const b = benchmarks.get(name);
  if ((b as { episodes?: unknown }).episodes !== undefined) throw new GsrError(`benchmark ${name} is episodic (each prompt depends on the answer before it): it runs only as a pipeline (gsr pipeline run FILE)`);
  if (!existsSync(join(dir, ITEMS_FILE)) && b.importItems !== undefined) {
    const set = await b.importItems(resolve(dir));
    const items = new Map<string, BenchItem>();
    for (const i of set.items) {
      if (items.has(i.id)) throw new GsrError(`${dir}: item id ${i.id} appears twice`);
      items.set(i.id, b.parseItem(JSON.parse(JSON.stringify(i))));
    }
    return { benchmark: b, items, context: JSON.parse(JSON.stringify(set.context ?? null)) as unknown };
  }
  const set = await loadItemSet(dir);
  if (set.benchmark.name !== name) throw new GsrError(`${join(dir, ITEMS_FILE)}: holds ${set.benchmark.name} items, not ${name}`);
  return set;
}

/** Answers asked per prompt: the requested number, else the plug-in's default, else 1; above the plug-in's limit is an error. */
export function answerAttemptsFor(b: Benchmark, requested: number | undefined, who: string): number {
  const n = requested ?? b.answerAttempts ?? 1;
  if (b.maxAnswerAttempts !== undefined && n > b.maxAnswerAttempts) {
    throw new GsrError(`${who}: answer_attempts ${n} is above ${b.name}'s limit of ${b.maxAnswerAttempts} (its official protocol does not ask again)`);
  }
  return n;
}

/** Why an output is invalid in the benchmark's first mode, or null (a judge that throws: invalid); the runner's re-ask test. */
export function benchValidator(b: Benchmark, items: ReadonlyMap<string, BenchItem>) {
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

/** A plug-in baseline when `kind` names one, else an answerer from the registry (openai, ...). */
export async function benchAnswerer(b: Benchmark, items: ReadonlyMap<string, BenchItem>, kind: string, options: AnswererOptions): Promise<Answerer> {
  const baseline = b.baselines[kind];
  if (baseline) return baseline(items, { name: options.model, seed: options.seed ?? 0 });
  if (!answerers.has(kind)) throw new GsrError(`unknown answerer kind "${kind}" for ${b.name} (its baselines: ${Object.keys(b.baselines).join(', ')}; answerers: ${answerers.names().join(', ')})`);
  return answerers.get(kind)(options);
}

export interface BenchScores {
  scored: ScoredResponse[];
  cells: ScoreCell[];
}

/** Scores each model's responses in every mode. */
export function scoreModels(b: Benchmark, items: ReadonlyMap<string, BenchItem>, prompts: readonly BenchPrompt[], responses: ReadonlyMap<string, ResponseLike[]>): BenchScores {
  const scored: ScoredResponse[] = [];
  for (const [model, rs] of responses) scored.push(...scoreResponses(b, items, prompts, model, rs));
  return { scored, cells: b.aggregate?.(scored) ?? scoreCells(scored) };
}

export const SCORES_FILE = 'scores.jsonl';
export const CELLS_FILE = 'cells.json';

/** Writes a scoring's files into `dir`: scores.jsonl (one line per prompt, model and mode) and cells.json. */
export async function writeBenchScores(dir: string, scores: BenchScores): Promise<string[]> {
  const files = [join(dir, SCORES_FILE), join(dir, CELLS_FILE)];
  await writeJsonlAtomic(files[0], scores.scored);
  await writeJsonAtomic(files[1], scores.cells);
  return files;
}

/** What an episodic plug-in's report gets besides the shared inputs. */
export type EpisodeReportInput = Pick<ReportInput, 'episodes' | 'episodeSettings' | 'replayItem'>;

/**
 * Writes the HTML report of one benchmark run; returns the analysis it used: `computed` when given
 * (episodic plug-ins compute theirs when scoring), else the plug-in's `analyze` of the cells with the
 * `analysis` settings.
 */
export async function writeBenchReport(b: Benchmark, file: string, input: { items: ReadonlyMap<string, BenchItem>; prompts: readonly BenchPrompt[]; scores: BenchScores; outputs: ReadonlyMap<string, string>; title?: string; analysis?: Record<string, unknown>; computed?: unknown; episodes?: EpisodeReportInput }): Promise<unknown> {
  const analysis = input.computed ?? b.analyze?.(input.scores.cells, input.analysis);
  const tables = b.tables(input.scores.cells, analysis);
  const sections = (await b.sections?.({ items: input.items, prompts: new Map(input.prompts.map((p) => [p.key, p])), cells: input.scores.cells, scored: input.scores.scored, outputs: input.outputs, analysis, ...input.episodes })) ?? [];
  const note = b.episodes ? 'Success rates in %, over episodes (one per item and model).' : 'Accuracies in %, pooled over items.';
  const caveats = b.notes?.(input.items) ?? [];
  const html = renderBenchPage(input.title ?? b.title, tables, sections, new Date().toISOString(), note, caveats);
  await writeFileAtomic(file, html);
  return analysis;
}
