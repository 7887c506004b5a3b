/**
 * Reading files that come from a dataset root without ever following a link out of it. Paths are
 * checked on their resolved real path (not the text of the path), and the file that was actually
 * opened is checked again, so a link swapped in between the check and the open is caught too.
 */
import { constants, realpathSync } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { GsrError } from './errors.js';

/** True when `path` (absolute) is `root` itself or lies inside it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Thrown when a path resolves outside its root; a GsrError so one bad item is reported, never sent. */
export class PathEscapeError extends GsrError {
  constructor(message: string) {
    super(message);
    this.name = 'PathEscapeError';
  }
}

/** `real` (the real path of `abs`) when it lies inside `realRoot`, or, without a root, when it is `abs` itself. */
function checked(abs: string, real: string, realRoot: string | undefined): string {
  if (realRoot !== undefined) {
    if (!isInside(realRoot, real)) throw new PathEscapeError(`${abs} resolves to ${real}, outside its root ${realRoot} (a symbolic link); refused`);
  } else if (real !== abs) {
    throw new PathEscapeError(`${abs} is reached through a symbolic link (it resolves to ${real}); refused`);
  }
  return real;
}

/**
 * The real path of `path`, refused unless it lies inside the real path of `root`. Without a root,
 * the path must already be its own real path (no symbolic link anywhere along it): paths the tool
 * wrote down itself (prompt files) are real paths, so a link found there now was swapped in later.
 * A missing file rejects with the file system's error (ENOENT), for the caller to word.
 */
export async function confinedRealPath(path: string, root?: string): Promise<string> {
  const abs = resolve(path);
  return checked(abs, await realpath(abs), root === undefined ? undefined : await realpath(resolve(root)));
}

/** Synchronous twin of {@link confinedRealPath}, for checks inside synchronous importer code. */
export function confinedRealPathSync(path: string, root?: string): string {
  const abs = resolve(path);
  return checked(abs, realpathSync(abs), root === undefined ? undefined : realpathSync(resolve(root)));
}

/**
 * Reads a regular file after {@link confinedRealPath}. The real path is opened without following a
 * final link, and on Linux the opened descriptor's own path must still be that real path.
 */
export async function readConfined(path: string, root?: string): Promise<Buffer> {
  const real = await confinedRealPath(path, root);
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ELOOP') throw new PathEscapeError(`${real} became a symbolic link while being opened; refused`);
    throw err;
  });
  try {
    if (!(await handle.stat()).isFile()) throw new GsrError(`${real} is not a regular file`);
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (opened !== null && opened !== real) throw new PathEscapeError(`${real} was replaced while being opened (it now leads to ${opened}); refused`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
