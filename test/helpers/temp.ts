/** Temporary folders for a test file, removed after its tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Returns a function that makes a fresh folder under the system's temp folder; all are removed after the file's tests. */
export function useTempDirs(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
  return async () => {
    const d = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
