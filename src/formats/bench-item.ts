/**
 * The benchmark items file (items.jsonl): one item per line, in the shape every benchmark plug-in
 * shares (id, benchmark, task, level) plus the plug-in's own fields, which its `parseItem` checks.
 * Image paths inside an item are relative to `root` (absolute), so a dataset copy is never moved.
 */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeJsonlAtomic } from '../util/fs.js';
import { readJsonlWithLines } from '../util/jsonl.js';

export const BenchItemSchema = z.looseObject({
  id: z.string().min(1),
  benchmark: z.string().min(1),
  task: z.string().min(1),
  level: z.string(),
  /** Folder the item's relative paths resolve against (absolute). */
  root: z.string().min(1).optional(),
});
export type BenchItem = z.infer<typeof BenchItemSchema>;

/** Reads an items file: every line must have the shared fields (a bad line is an error naming it). */
export async function readBenchItems(path: string): Promise<BenchItem[]> {
  const out: BenchItem[] = [];
  for await (const { line, value } of readJsonlWithLines<unknown>(path)) {
    const r = BenchItemSchema.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new GsrError(`${path}:${line}: not a benchmark item: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
    }
    out.push(r.data);
  }
  return out;
}

/** Writes an items file atomically (all lines or none). */
export function writeBenchItems(path: string, items: Iterable<BenchItem>): Promise<void> {
  return writeJsonlAtomic(path, items);
}
