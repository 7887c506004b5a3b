/** manifest.jsonl: one benchmark item a line (docs/datasets.md). */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeJsonlAtomic } from '../util/fs.js';
import { readJsonlWithLines } from '../util/jsonl.js';

/** Conventional file name of a dataset folder's manifest. */
export const MANIFEST_FILE = 'manifest.jsonl';

/** Spatial relations that captions express. */
export const RELATIONS = ['on', 'under', 'left', 'right', 'front', 'behind', 'top', 'bottom', 'above', 'below'] as const;
export type Relation = (typeof RELATIONS)[number];

/** Known split names; other names are allowed for user data. */
export const SPLITS = ['whatsup-a', 'whatsup-b', 'coco-one', 'coco-two', 'gqa-one', 'gqa-two', 'synthetic'] as const;

/** One benchmark item: an image, the objects it names, and its caption options. */
export const ManifestItemSchema = z.object({
  /** Stable id, unique within the manifest. */
  id: z.string().min(1),
  split: z.string().min(1),
  /** Image path relative to `root`, with forward slashes. */
  image: z.string().min(1),
  /**
   * Absolute dataset root the image path resolves against. Absent for self-contained datasets
   * (synthetic scenes), whose images resolve against the manifest file's folder.
   */
  root: z.string().min(1).optional(),
  subject: z.string().min(1),
  /** Null for one-object splits. */
  object: z.string().min(1).nullable(),
  relation: z.enum(RELATIONS),
  /** Caption strings in their original order. */
  options: z.array(z.string().min(1)).min(2),
  /** Index into `options` of the correct caption. */
  answer: z.number().int().nonnegative(),
  /** How a synthetic scene was composed (`furniture`, `tabletop`, `one-object`); absent for real data. */
  style: z.string().min(1).optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
});
export type ManifestItem = z.infer<typeof ManifestItemSchema>;

/** One-line summary of a zod error: the first issue with its field path. */
function describeIssue(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  const issue = error.issues[0];
  const field = issue.path.map(String).join('.');
  return field ? `${field}: ${issue.message}` : issue.message;
}

/**
 * Yields the items of a manifest one at a time, validated against the manifest schema. A bad
 * line, an answer outside the options or a repeated id is a GsrError naming `file:line`.
 */
export async function* readManifest(path: string): AsyncGenerator<ManifestItem> {
  const seen = new Set<string>();
  for await (const { line, value } of readJsonlWithLines(path)) {
    const parsed = ManifestItemSchema.safeParse(value);
    if (!parsed.success) throw new GsrError(`${path}:${line}: invalid manifest item (${describeIssue(parsed.error)})`);
    const item = parsed.data;
    if (item.answer >= item.options.length) {
      throw new GsrError(`${path}:${line}: item ${item.id}: answer ${item.answer} is outside its ${item.options.length} options`);
    }
    if (seen.has(item.id)) throw new GsrError(`${path}:${line}: duplicate item id ${item.id}`);
    seen.add(item.id);
    yield item;
  }
}

/** Reads a whole manifest into an array (for manifests known to be small). */
export async function readManifestAll(path: string): Promise<ManifestItem[]> {
  const items: ManifestItem[] = [];
  for await (const item of readManifest(path)) items.push(item);
  return items;
}

/** Writes manifest items as JSON Lines, atomically. */
export function writeManifest(path: string, items: Iterable<ManifestItem>): Promise<void> {
  return writeJsonlAtomic(path, items);
}

/**
 * Split names in the benchmark's order (the paper's table columns), unknown names after them in
 * code-point order (locale-independent, so tables are the same on every machine).
 */
export function orderSplits(names: Iterable<string>): string[] {
  const known: readonly string[] = SPLITS;
  return [...new Set(names)].sort((a, b) => {
    const ia = known.indexOf(a);
    const ib = known.indexOf(b);
    if (ia >= 0 && ib >= 0) return ia - ib;
    if (ia >= 0) return -1;
    if (ib >= 0) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
