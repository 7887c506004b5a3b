/** Typed results-folder writers of scoring (the file layout is formats/results.ts). */
import { writeResultsFiles } from '../formats/results.js';
import type { GroundingItemResult, GroundingResult } from './grounding.js';
import type { ReasoningItemResult, ReasoningResult } from './reasoning.js';
import { groundingCsv, reasoningCsv } from './tables.js';

/** Writes reasoning.json, reasoning.csv and reasoning-items.jsonl into `dir`; returns the paths. */
export function writeReasoningResults(dir: string, result: ReasoningResult, items: ReasoningItemResult[]): Promise<string[]> {
  return writeResultsFiles(dir, 'reasoning', result, reasoningCsv(result), items);
}

/** Writes grounding.json, grounding.csv and grounding-items.jsonl into `dir`; returns the paths. */
export function writeGroundingResults(dir: string, result: GroundingResult, items: GroundingItemResult[]): Promise<string[]> {
  return writeResultsFiles(dir, 'grounding', result, groundingCsv(result), items);
}
