/**
 * Image path rules shared by the importers and every stage that opens an item's image:
 * paths are relative, use forward slashes, and never leave their root.
 */
import { dirname, isAbsolute, posix, resolve } from 'node:path';
import { PathEscapeError, confinedRealPath, isInside } from '../util/confined.js';
import { GsrError, errorMessage } from '../util/errors.js';
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

export { isInside };

/** The folder an item's image path is relative to: its root, or the manifest's folder. */
export function itemBase(item: Pick<ManifestItem, 'root'>, manifestPath: string): string {
  return item.root ?? dirname(resolve(manifestPath));
}

/**
 * Absolute path of an item's image: `item.image` against `item.root`, or against the manifest's
 * folder when the item has no root (self-contained sets such as synthetic scenes). Refuses paths
 * that are absolute or escape that base.
 */
export function resolveItemImage(item: Pick<ManifestItem, 'id' | 'image' | 'root'>, manifestPath: string): string {
  const base = itemBase(item, manifestPath);
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

/**
 * {@link resolveItemImage}, then the image's real path, refused (PathEscapeError) when a symbolic
 * link, of the file or of a folder on the way, leads out of the item's root. Use it before a file
 * is read, hashed or sent anywhere; a missing file is a GsrError.
 */
export async function realItemImage(item: Pick<ManifestItem, 'id' | 'image' | 'root'>, manifestPath: string): Promise<string> {
  const abs = resolveItemImage(item, manifestPath);
  try {
    return await confinedRealPath(abs, itemBase(item, manifestPath));
  } catch (err) {
    if (err instanceof PathEscapeError) throw new PathEscapeError(`item ${item.id}: ${err.message}`);
    throw new GsrError(`item ${item.id}: cannot read image ${abs}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
  }
}
