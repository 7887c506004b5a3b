/** Streaming, validated reading of manifest.jsonl files. */
import { GsrError } from '../util/errors.js';
import { readJsonlWithLines } from '../util/jsonl.js';
import { ManifestItemSchema, type ManifestItem } from './manifest.js';

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
