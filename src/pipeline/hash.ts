/** Content digests of stage folders for the stage engine. */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { sha256File } from '../util/hash.js';

export interface FileEntry {
  /** Path relative to the folder, with forward slashes. */
  path: string;
  size: number;
  sha256: string;
}

/** Every regular file under `dir` (sorted), except names `skip` rejects. */
export async function listFiles(dir: string, skip: (relPath: string) => boolean = () => false): Promise<Array<{ path: string; size: number }>> {
  const out: Array<{ path: string; size: number }> = [];
  async function walk(d: string): Promise<void> {
    const entries = await readdir(d, { withFileTypes: true });
    for (const e of entries) {
      const full = join(d, e.name);
      const rel = relative(dir, full).split(sep).join('/');
      if (skip(rel)) continue;
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) out.push({ path: rel, size: (await stat(full)).size });
    }
  }
  await walk(dir);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Digests of every file in a folder, and one digest over them all. */
export async function folderDigest(dir: string, skip?: (relPath: string) => boolean): Promise<{ digest: string; files: FileEntry[] }> {
  const files: FileEntry[] = [];
  for (const f of await listFiles(dir, skip)) files.push({ ...f, sha256: await sha256File(join(dir, f.path)) });
  const digest = createHash('sha256').update(files.map((f) => `${f.path}\0${f.sha256}`).join('\n')).digest('hex');
  return { digest, files };
}
