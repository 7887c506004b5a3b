/**
 * What to annotate: one target per image, with the phrases to look for. Built from a manifest
 * (subject and object come from each item) or from image files plus an object list.
 */
import { createHash } from 'node:crypto';
import { basename, extname, resolve } from 'node:path';
import { itemBase, resolveItemImage } from '../formats/image-paths.js';
import { readManifest } from '../formats/manifest.js';
import { GsrError } from '../util/errors.js';
import { notice } from '../util/log.js';

export type Role = 'subject' | 'object';

export interface AnnotateTarget {
  /** Manifest item id, or an id derived from the file name. */
  itemId: string;
  split?: string;
  /** Absolute path of the image file. */
  imagePath: string;
  /** Dataset root the image must stay inside (real path checked when it is read); unset for files named on the command line. */
  root?: string;
  /** File name recorded in COCO `images[].file_name` (the manifest's relative path). */
  fileName: string;
  objects: Array<{ role: Role; phrase: string }>;
}

/** Parses `--objects "mug,table"`: first the subject, then the object; at most two. */
export function parseObjectList(text: string): Array<{ role: Role; phrase: string }> {
  const phrases = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (phrases.length === 0) throw new GsrError('--objects needs at least one object name, e.g. --objects "mug,table"');
  if (phrases.length > 2) throw new GsrError(`--objects takes a subject and at most one object, got ${phrases.length}: "${text}"`);
  return phrases.map((phrase, i) => ({ role: i === 0 ? 'subject' : 'object', phrase }));
}

/**
 * Targets for new images: ids are file names without extension; a name seen twice gets
 * `-2`, `-3`, ... in input order, so ids stay unique and stable for the same argument list, and a
 * notice names both files.
 */
export function targetsFromImages(paths: string[], objects: Array<{ role: Role; phrase: string }>): AnnotateTarget[] {
  const seen = new Map<string, { n: number; first: string }>();
  return paths.map((p) => {
    const stem = basename(p, extname(p)) || basename(p);
    const s = seen.get(stem) ?? { n: 0, first: p };
    s.n++;
    seen.set(stem, s);
    const itemId = s.n === 1 ? stem : `${stem}-${s.n}`;
    if (s.n > 1) notice(`${s.first} and ${p} are both named ${stem}: ${p} is item ${itemId}`);
    return { itemId, imagePath: resolve(p), fileName: basename(p), objects };
  });
}

/** Throws if two targets share an id (the journal and outputs are keyed by it). */
export function assertUniqueIds(targets: AnnotateTarget[], source: string): void {
  const ids = new Set<string>();
  for (const t of targets) {
    if (ids.has(t.itemId)) throw new GsrError(`${source}: duplicate item id "${t.itemId}"`);
    ids.add(t.itemId);
  }
}

/**
 * A file-system-safe stem for per-image outputs (depth/<stem>.png). Ids that are not already
 * safe get a short hash suffix so that two ids never share a file.
 */
export function fileStemForId(itemId: string): string {
  const safe = itemId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_');
  if (safe === itemId) return safe;
  return `${safe}-${createHash('sha1').update(itemId).digest('hex').slice(0, 8)}`;
}

/**
 * Targets for a manifest's items, read as a stream: the subject, then the object when the item
 * has one. Items keep only ids, paths and phrases, so even large manifests stay small in memory.
 */
export async function targetsFromManifest(manifestPath: string): Promise<AnnotateTarget[]> {
  const targets: AnnotateTarget[] = [];
  for await (const item of readManifest(manifestPath)) {
    const objects: AnnotateTarget['objects'] = [{ role: 'subject', phrase: item.subject }];
    if (item.object !== null) objects.push({ role: 'object', phrase: item.object });
    targets.push({ itemId: item.id, split: item.split, imagePath: resolveItemImage(item, manifestPath), root: itemBase(item, manifestPath), fileName: item.image, objects });
  }
  return targets;
}
