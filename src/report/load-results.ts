import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { ItemOutcomeFolder, groundingOutcome } from '../analysis/outcomes.js';
import type {
  GroundingItemRecord,
  GroundingOutcome,
  GroundingSummary,
  ModelResults,
  ReasoningItemRecord,
  ReasoningSummary,
  ReasoningVariant,
} from '../analysis/results-types.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { readJsonFile, readJsonl } from '../util/jsonl.js';

const num = z.number();
const ReasoningSummarySchema = z.looseObject({
  model: z.string(),
  splits: z.record(z.string(), z.looseObject({ n: num, circular: num.nullable(), vanilla: num.nullable(), unparsed: num.optional() })),
});
const GroundingSummarySchema = z.looseObject({
  model: z.string(),
  columns: z.record(z.string(), z.looseObject({ n: num, accuracy: num.nullable() })),
});
const ReasoningItemSchema = z.looseObject({ item: z.string(), split: z.string(), correct: z.boolean() });
const GroundingItemSchema = z.looseObject({ item: z.string(), split: z.string(), role: z.string(), hit: z.boolean() });

async function readSummary<T>(path: string, schema: z.ZodType, warnings: string[]): Promise<T | null> {
  if (!existsSync(path)) return null;
  try {
    const value = await readJsonFile(path);
    const checked = schema.safeParse(value);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      warnings.push(`${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      return null;
    }
    return value as T;
  } catch (err) {
    warnings.push(errorMessage(err));
    return null;
  }
}

/**
 * Streams a scored-items file, passing each valid record on. Invalid records are counted and named in
 * a warning; a malformed line ends the file with a warning but keeps what was read.
 */
async function readItems<T>(path: string, schema: z.ZodType, warnings: string[], each: (r: T) => void): Promise<boolean> {
  if (!existsSync(path)) return false;
  let line = 0;
  const bad: number[] = [];
  try {
    for await (const record of readJsonl(path)) {
      line++;
      if (schema.safeParse(record).success) each(record as T);
      else bad.push(line);
    }
  } catch (err) {
    warnings.push(errorMessage(err));
  }
  if (bad.length > 0) warnings.push(`${path}: ${bad.length} record(s) lack required fields (first at record ${bad[0]}); skipped`);
  return true;
}

async function loadReasoningVariant(dir: string, variant: string, warnings: string[]): Promise<ReasoningVariant | null> {
  const summary = await readSummary<ReasoningSummary>(join(dir, 'reasoning.json'), ReasoningSummarySchema, warnings);
  const folder = new ItemOutcomeFolder();
  const hasItems = await readItems<ReasoningItemRecord>(join(dir, 'reasoning-items.jsonl'), ReasoningItemSchema, warnings, (r) => folder.add(r));
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
  const grounding = await readSummary<GroundingSummary>(join(dir, 'grounding.json'), GroundingSummarySchema, warnings);
  const outcomes: GroundingOutcome[] = [];
  const hasGroundingItems = await readItems<GroundingItemRecord>(join(dir, 'grounding-items.jsonl'), GroundingItemSchema, warnings, (r) =>
    outcomes.push(groundingOutcome(r)),
  );
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
