/**
 * The I/O edge of scoring: writes a results folder atomically. Names are a contract read by the
 * report and the pipeline: reasoning.json / .csv / -items.jsonl, grounding.json / .csv / -items.jsonl.
 */
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic, writeJsonlAtomic } from '../util/fs.js';
import type { GroundingItemResult, GroundingResult } from './grounding.js';
import type { ReasoningItemResult, ReasoningResult } from './reasoning.js';
import { groundingCsv, reasoningCsv } from './tables.js';

/** Writes `<name>.json`, `<name>.csv` and `<name>-items.jsonl` into `dir` (items first, the summary last); returns the paths. */
async function writeResults(dir: string, name: string, result: unknown, csv: string, items: unknown[]): Promise<string[]> {
  const paths = [join(dir, `${name}.json`), join(dir, `${name}.csv`), join(dir, `${name}-items.jsonl`)];
  await writeJsonlAtomic(paths[2], items);
  await writeFileAtomic(paths[1], csv);
  await writeJsonAtomic(paths[0], result);
  return paths;
}

/** Writes reasoning.json, reasoning.csv and reasoning-items.jsonl into `dir`; returns the paths. */
export function writeReasoningResults(dir: string, result: ReasoningResult, items: ReasoningItemResult[]): Promise<string[]> {
  return writeResults(dir, 'reasoning', result, reasoningCsv(result), items);
}

/** Writes grounding.json, grounding.csv and grounding-items.jsonl into `dir`; returns the paths. */
export function writeGroundingResults(dir: string, result: GroundingResult, items: GroundingItemResult[]): Promise<string[]> {
  return writeResults(dir, 'grounding', result, groundingCsv(result), items);
}
