/** Loads results folders (every result set of a model, with per-item outcomes) for analysis. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readResultItems, readResultsSummary } from '../formats/results.js';
import { GsrError } from '../util/errors.js';
import { ItemOutcomeFolder, groundingOutcome } from './outcomes.js';
import type { GroundingOutcome, ModelResults, ReasoningVariant } from './results-types.js';

async function loadReasoningVariant(dir: string, variant: string, warnings: string[]): Promise<ReasoningVariant | null> {
  const summary = await readResultsSummary(dir, 'reasoning', warnings);
  const folder = new ItemOutcomeFolder();
  const hasItems = await readResultItems(dir, 'reasoning', warnings, (r) => folder.add(r));
  if (summary === null && !hasItems) return null;
  return { variant, summary, items: hasItems ? folder.outcomes() : null };
}

/**
 * Reads one model's results folder: reasoning.json / reasoning-items.jsonl at its root and in each
 * subfolder (variants such as `dap` and `nodap`), grounding.json / grounding-items.jsonl at its root.
 * Every part is optional; a folder with none of them is an error.
 */
export async function loadModelResults(dir: string): Promise<ModelResults> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new GsrError(`results folder not found: ${dir}`);
  const warnings: string[] = [];
  const reasoning: ReasoningVariant[] = [];
  const root = await loadReasoningVariant(dir, '', warnings);
  if (root) reasoning.push(root);
  for (const entry of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const v = await loadReasoningVariant(join(dir, entry.name), entry.name, warnings);
    if (v) reasoning.push(v);
  }
  const grounding = await readResultsSummary(dir, 'grounding', warnings);
  const outcomes: GroundingOutcome[] = [];
  // Objects without a label are not scored (docs/scoring.md, "Semantics"): no outcome.
  const hasGroundingItems = await readResultItems(dir, 'grounding', warnings, (r) => {
    if (r.status !== 'no_label') outcomes.push(groundingOutcome(r));
  });
  if (reasoning.length === 0 && grounding === null && !hasGroundingItems) {
    throw new GsrError(`${dir}: no reasoning.json, grounding.json or *-items.jsonl found${warnings.length ? ` (${warnings[0]})` : ''}`);
  }
  const model = grounding?.model ?? reasoning.find((v) => v.summary)?.summary?.model ?? basename(dir);
  return { model, dir, reasoning, grounding, groundingOutcomes: hasGroundingItems ? outcomes : null, warnings };
}

/** Loads several results folders; model names must be distinct. */
export async function loadAllResults(dirs: string[]): Promise<ModelResults[]> {
  const out: ModelResults[] = [];
  for (const d of dirs) out.push(await loadModelResults(d));
  const seen = new Map<string, string>();
  for (const r of out) {
    const prev = seen.get(r.model);
    if (prev !== undefined) throw new GsrError(`model "${r.model}" appears twice (${prev} and ${r.dir})`);
    seen.set(r.model, r.dir);
  }
  return out;
}
