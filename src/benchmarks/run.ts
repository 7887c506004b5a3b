/**
 * The steps around a plug-in, shared by the CLI and the pipeline: import an item set into a folder,
 * read it back, answer with a baseline or a model through the cached runner, score, and write the
 * report page.
 */
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readBenchItems, writeBenchItems, type BenchItem } from '../formats/bench-item.js';
import type { BenchPrompt } from '../formats/chat-prompt.js';
import { answerers, type Answerer, type AnswererOptions } from '../mllm/index.js';
import { renderBenchPage } from '../report/bench-page.js';
import { GsrError } from '../util/errors.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/fs.js';
import { readJsonFile } from '../util/jsonl.js';
import { benchmarks } from './registry.js';
import { scoreCells, scoreResponses, type ResponseLike } from './score.js';
import type { Benchmark, ItemSet, ScoreCell, ScoredResponse } from './types.js';

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
  return writeItemSet(name, await b.importItems(root, onProgress), outDir);
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

/** Reads an item set back, each item checked by its plug-in; items without `root` get the set's folder. */
export async function loadItemSet(dir: string): Promise<{ benchmark: Benchmark; items: Map<string, BenchItem>; context: unknown }> {
  const raw = await readBenchItems(join(dir, ITEMS_FILE));
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
  return { benchmark: b, items, context: await readJsonFile(join(dir, CONTEXT_FILE)) };
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

/** Writes the HTML report of one benchmark run; returns the analysis it computed. */
export async function writeBenchReport(b: Benchmark, file: string, input: { items: ReadonlyMap<string, BenchItem>; prompts: readonly BenchPrompt[]; scores: BenchScores; outputs: ReadonlyMap<string, string>; title?: string; analysis?: Record<string, unknown> }): Promise<unknown> {
  const analysis = b.analyze?.(input.scores.cells, input.analysis);
  const tables = b.tables(input.scores.cells, analysis);
  const sections = (await b.sections?.({ items: input.items, prompts: new Map(input.prompts.map((p) => [p.key, p])), cells: input.scores.cells, scored: input.scores.scored, outputs: input.outputs, analysis })) ?? [];
  const html = renderBenchPage(input.title ?? b.title, tables, sections, new Date().toISOString(), 'Accuracies in %, pooled over items.');
  await writeFileAtomic(file, html);
  return analysis;
}
