/**
 * Results folders (docs/scoring.md): per model `reasoning.json` / `.csv` / `-items.jsonl` and
 * `grounding.json` / `.csv` / `-items.jsonl`, with DAP variants in subfolders. Readers check the
 * fields analysis relies on and pass the rest through.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../util/errors.js';
import { writeFileAtomic, writeJsonAtomic, writeJsonlAtomic } from '../util/fs.js';
import { readJsonFile, readJsonl } from '../util/jsonl.js';

export type ResultsKind = 'reasoning' | 'grounding';

/** The three files of one result set in `dir`. */
export function resultsPaths(dir: string, kind: ResultsKind): { summary: string; csv: string; items: string } {
  return { summary: join(dir, `${kind}.json`), csv: join(dir, `${kind}.csv`), items: join(dir, `${kind}-items.jsonl`) };
}

const num = z.number();

/** One split of reasoning.json: accuracies as fractions in [0, 1] (null when not computed). */
export const ReasoningSplitSummarySchema = z.object({
  /** Items. */
  n: num,
  circular: num.nullable(),
  /** Single-pass accuracy over all prompts (every rotation counts). */
  vanilla: num.nullable(),
  /** Rotation 0 only (MMBench style). */
  vanilla_first: num.nullable().optional(),
  /** Prompts (each rotation of an item is one). */
  prompts: num.optional(),
  /** Prompts whose answer was missing, failed or unreadable. */
  unparsed: num.optional(),
});
export type ReasoningSplitSummary = z.infer<typeof ReasoningSplitSummarySchema>;

const counts = z.record(z.string(), num);

/**
 * What'sUp's own metrics of one controlled split in reasoning.json (`whatsup.<split>`; docs/scoring.md,
 * "What'sUp's own metrics"): means over the passes (rotations), the all-rotations-right figures, and
 * the confusion counts summed over the passes (`confusion[gold][chosen]`, `none` = not read).
 */
export const WhatsupSummarySchema = z.looseObject({
  subset: z.enum(['A', 'B']),
  /** Images. */
  n: num,
  passes: num,
  individual: num.nullable(),
  pair: num.nullable(),
  set: num.nullable(),
  circular: z.looseObject({ individual: num.nullable(), pair: num.nullable(), set: num.nullable() }),
  prepositions: counts.optional(),
  confusion: z.record(z.string(), counts).optional(),
  unparsed: num.optional(),
  by_pass: z.array(z.looseObject({ rotation: num, n: num, individual: num.nullable(), pair: num.nullable(), set: num.nullable() })).optional(),
});
export type WhatsupSummary = z.infer<typeof WhatsupSummarySchema>;

/** reasoning.json */
export const ReasoningSummarySchema = z.object({
  model: z.string(),
  task: z.string().optional(),
  splits: z.record(z.string(), ReasoningSplitSummarySchema.loose()),
  total_average: z.looseObject({ circular: num.nullable().optional(), vanilla: num.nullable().optional() }).optional(),
  position_bias: z.unknown().optional(),
  relations: z.unknown().optional(),
  /** What'sUp's own metrics per controlled split (whatsup-a, whatsup-b). */
  whatsup: z.record(z.string(), WhatsupSummarySchema).optional(),
});
export type ReasoningSummary = z.infer<typeof ReasoningSummarySchema>;

/** One column of grounding.json, keyed "<split>/<role>". */
export const GroundingColumnSummarySchema = z.object({
  /** Labelled objects scored (0 when every object of the column lacks a label: no accuracy, no mean IoU). */
  n: num,
  hits: num.optional(),
  accuracy: num.nullable(),
  mean_iou: num.nullable().optional(),
  unparsed: num.optional(),
  missing: num.optional(),
  /** Objects of the column without a label (not scored). */
  no_label: num.optional(),
});
export type GroundingColumnSummary = z.infer<typeof GroundingColumnSummarySchema>;

/** grounding.json */
export const GroundingSummarySchema = z.object({
  model: z.string(),
  columns: z.record(z.string(), GroundingColumnSummarySchema.loose()),
  avg_g_score: num.nullable().optional(),
  detector: z.unknown().optional(),
});
export type GroundingSummary = z.infer<typeof GroundingSummarySchema>;

/** Fields every scored-item line has: the prompt key, the item, its split, the raw answer and its status. */
const ItemLineSchema = z.object({
  key: z.string().optional(),
  item: z.string(),
  split: z.string(),
  output: z.string().nullable().optional(),
  status: z.string().optional(),
});

/** One line of reasoning-items.jsonl: one prompt (item x rotation) scored. */
export const ReasoningItemRecordSchema = ItemLineSchema.extend({
  relation: z.string().optional(),
  task: z.string().optional(),
  rotation: num.optional(),
  permutation: z.array(num).optional(),
  extracted: z.unknown().optional(),
  correct: z.boolean(),
});
export type ReasoningItemRecord = z.infer<typeof ReasoningItemRecordSchema>;

/** One line of grounding-items.jsonl: one object asked for and scored. */
export const GroundingItemRecordSchema = ItemLineSchema.extend({
  role: z.string(),
  phrase: z.string().optional(),
  /** The model's box, xyxy original-image pixels (also read from `parsed`, `parsed_box`, `pred_box`). */
  box: z.array(num).nullable().optional(),
  /** The annotation box, xyxy pixels (also read from `gt_box`). */
  gt: z.array(num).nullable().optional(),
  iou: num.nullable().optional(),
  hit: z.boolean(),
  image: z.string().optional(),
});
export type GroundingItemRecord = z.infer<typeof GroundingItemRecordSchema>;

// What a reader checks: the fields analysis needs; everything else passes through as written.
const SUMMARY_CHECKS = {
  reasoning: ReasoningSummarySchema.pick({ model: true, splits: true }).loose(),
  grounding: GroundingSummarySchema.pick({ model: true, columns: true }).loose(),
};
const ITEM_CHECKS = {
  reasoning: ReasoningItemRecordSchema.pick({ item: true, split: true, correct: true }).loose(),
  grounding: GroundingItemRecordSchema.pick({ item: true, split: true, role: true, hit: true }).loose(),
};
type Summary<K extends ResultsKind> = K extends 'reasoning' ? ReasoningSummary : GroundingSummary;
type ItemRecord<K extends ResultsKind> = K extends 'reasoning' ? ReasoningItemRecord : GroundingItemRecord;

/**
 * Reads `<kind>.json` in `dir`: null when absent; null with a warning naming the file when it is
 * unreadable or lacks a needed field.
 */
export async function readResultsSummary<K extends ResultsKind>(dir: string, kind: K, warnings: string[]): Promise<Summary<K> | null> {
  const path = resultsPaths(dir, kind).summary;
  if (!existsSync(path)) return null;
  try {
    const value = await readJsonFile(path);
    const checked = SUMMARY_CHECKS[kind].safeParse(value);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      warnings.push(`${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      return null;
    }
    return value as Summary<K>;
  } catch (err) {
    warnings.push(errorMessage(err));
    return null;
  }
}

/**
 * Streams `<kind>-items.jsonl` in `dir`, passing each valid record to `each`; false when the file is
 * absent. Invalid records are counted and named in a warning; a malformed line ends the file with a
 * warning but keeps what was read.
 */
export async function readResultItems<K extends ResultsKind>(dir: string, kind: K, warnings: string[], each: (r: ItemRecord<K>) => void): Promise<boolean> {
  const path = resultsPaths(dir, kind).items;
  if (!existsSync(path)) return false;
  const check = ITEM_CHECKS[kind];
  let line = 0;
  const bad: number[] = [];
  try {
    for await (const record of readJsonl(path)) {
      line++;
      if (check.safeParse(record).success) each(record as ItemRecord<K>);
      else bad.push(line);
    }
  } catch (err) {
    warnings.push(errorMessage(err));
  }
  if (bad.length > 0) warnings.push(`${path}: ${bad.length} record(s) lack required fields (first at record ${bad[0]}); skipped`);
  return true;
}

/**
 * Writes `<kind>-items.jsonl`, `<kind>.csv` and `<kind>.json` into `dir`, each atomically and the
 * summary last (its presence means the set is complete); returns the paths (summary, csv, items).
 */
export async function writeResultsFiles(dir: string, kind: ResultsKind, summary: unknown, csv: string, items: Iterable<unknown>): Promise<string[]> {
  const paths = resultsPaths(dir, kind);
  await writeJsonlAtomic(paths.items, items);
  await writeFileAtomic(paths.csv, csv);
  await writeJsonAtomic(paths.summary, summary);
  return [paths.summary, paths.csv, paths.items];
}

/** The label-noise stage's report (src/analysis/label-noise.ts's LabelNoiseReport), in the stage's folder. */
export const LABEL_NOISE_FILE = 'label-noise.json';
