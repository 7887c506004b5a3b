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
import { confinedRealPath } from '../util/confined.js';
import { GsrError, errorMessage } from '../util/errors.js';
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
