/** Content hashes for the stage engine: canonical JSON of settings, and digests of files and folders. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** JSON with object keys sorted, so equal settings hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** sha256 of a file's bytes, streamed. */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

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
  for (const f of await listFiles(dir, skip)) files.push({ ...f, sha256: await fileDigest(join(dir, f.path)) });
  return { digest: sha256(files.map((f) => `${f.path}\0${f.sha256}`).join('\n')), files };
}
