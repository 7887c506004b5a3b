import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';

function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Writes a file so that readers see either the old content or the new, never a partial file. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Synchronous twin of {@link writeFileAtomic}, for exit handlers and small files. */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Writes pretty-printed JSON atomically. */
export function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  return writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}

/** Writes records as JSON Lines atomically. */
export function writeJsonlAtomic(path: string, records: Iterable<unknown>): Promise<void> {
  let text = '';
  for (const r of records) text += JSON.stringify(r) + '\n';
  return writeFileAtomic(path, text);
}

/**
 * A file written piece by piece that appears at `path` only on `commit()` (temp file + rename), so that
 * large outputs can be streamed and still be atomic. `abort()` removes the temp file.
 */
export interface AtomicWriter {
  write(text: string): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** Opens an {@link AtomicWriter} for `path` (creating its folder). */
export async function openAtomicWriter(path: string): Promise<AtomicWriter> {
  const { open } = await import('node:fs/promises');
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  const handle = await open(tmp, 'w');
  let buffered = '';
  const flush = async () => {
    if (buffered.length > 0) {
      const text = buffered;
      buffered = '';
      await handle.write(text);
    }
  };
  return {
    async write(text: string) {
      buffered += text;
      if (buffered.length >= 1 << 20) await flush();
    },
    async commit() {
      await flush();
      await handle.close();
      await rename(tmp, path);
    },
    async abort() {
      await handle.close().catch(() => {});
      await rm(tmp, { force: true });
    },
  };
}
