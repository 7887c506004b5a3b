/**
 * Image path rules shared by the importers and every stage that opens an item's image:
 * paths are relative, use forward slashes, and never leave their root.
 */
import { dirname, isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { GsrError } from '../util/errors.js';
import type { ManifestItem } from './manifest.js';

/**
 * Normalises a relative image path to forward slashes; null when it is absolute (POSIX, Windows
 * drive or UNC) or climbs out of its root with `..`.
 */
export function normaliseRelativePath(path: string): string | null {
  const slashed = path.replace(/\\/g, '/');
  if (slashed === '' || slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed) || isAbsolute(path)) return null;
  const norm = posix.normalize(slashed);
  if (norm === '..' || norm.startsWith('../') || norm === '.' || norm.endsWith('/')) return null;
  return norm;
}

/** True when `path` (absolute) is `root` itself or lies inside it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Absolute path of an item's image: `item.image` against `item.root`, or against the manifest's
 * folder when the item has no root (self-contained sets such as synthetic scenes). Refuses paths
 * that are absolute or escape that base.
 */
export function resolveItemImage(item: Pick<ManifestItem, 'id' | 'image' | 'root'>, manifestPath: string): string {
  const base = item.root ?? dirname(resolve(manifestPath));
  const rel = normaliseRelativePath(item.image);
  if (rel === null) {
    throw new GsrError(`${manifestPath}: item ${item.id}: image path "${item.image}" is absolute or escapes its root`);
  }
  const abs = resolve(base, rel);
  if (!isInside(base, abs)) {
    throw new GsrError(`${manifestPath}: item ${item.id}: image path "${item.image}" escapes ${base}`);
  }
  return abs;
}
