/**
 * The I/O edge of scoring: writes a results folder atomically. Names are a contract read by the
 * report and the pipeline: reasoning.json / .csv / -items.jsonl, grounding.json / .csv / -items.jsonl.
 */
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic, writeJsonlAtomic } from '../util/fs.js';
import type { GroundingItemResult, GroundingResult } from './grounding.js';
import type { ReasoningItemResult, ReasoningResult } from './reasoning.js';
import { groundingCsv, reasoningCsv } from './tables.js';

/** Writes reasoning.json, reasoning.csv and reasoning-items.jsonl into `dir`; returns the paths. */
export async function writeReasoningResults(dir: string, result: ReasoningResult, items: ReasoningItemResult[]): Promise<string[]> {
  const paths = [join(dir, 'reasoning.json'), join(dir, 'reasoning.csv'), join(dir, 'reasoning-items.jsonl')];
  await writeJsonlAtomic(paths[2], items);
  await writeFileAtomic(paths[1], reasoningCsv(result));
  await writeJsonAtomic(paths[0], result);
  return paths;
}

/** Writes grounding.json, grounding.csv and grounding-items.jsonl into `dir`; returns the paths. */
export async function writeGroundingResults(dir: string, result: GroundingResult, items: GroundingItemResult[]): Promise<string[]> {
  const paths = [join(dir, 'grounding.json'), join(dir, 'grounding.csv'), join(dir, 'grounding-items.jsonl')];
  await writeJsonlAtomic(paths[2], items);
  await writeFileAtomic(paths[1], groundingCsv(result));
  await writeJsonAtomic(paths[0], result);
  return paths;
}
