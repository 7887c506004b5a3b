import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { pidAlive } from './process.js';
import { faultPoint } from './faults.js';

function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** A temp file of {@link tempPathFor}; group 1 is its writer's pid. */
const TEMP_FILE = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Removes the temp files under `folder` (symbolic links not followed) whose writer process is gone: a
 * writer killed between writing and renaming leaves one. Returns how many were removed.
 */
export function removeStaleTemps(folder: string): number {
  let removed = 0;
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(folder, e.name);
    if (e.isDirectory()) removed += removeStaleTemps(path);
    else if (e.isFile()) {
      const m = TEMP_FILE.exec(e.name);
      if (m && !pidAlive(Number(m[1]))) {
        rmSync(path, { force: true });
        removed++;
      }
    }
  }
  return removed;
}

/** Writes a file so that readers see either the old content or the new, never a partial file. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  try {
    faultPoint(path);
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
    faultPoint(path);
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

/** Writes records (a list, or a stream such as an async generator) as JSON Lines atomically. */
export function writeJsonlAtomic(path: string, records: Iterable<unknown> | AsyncIterable<unknown>): Promise<void> {
  return writeAtomicStream(path, async (write) => {
    let text = '';
    // A list is walked without `for await`, which would cost a microtask per record.
    const sync = Symbol.iterator in records;
    for await (const batch of sync ? [records as Iterable<unknown>] : oneByOne(records as AsyncIterable<unknown>)) {
      for (const r of batch) {
        text += JSON.stringify(r) + '\n';
        if (text.length >= 1 << 20) {
          await write(text);
          text = '';
        }
      }
    }
    await write(text);
  });
}

async function* oneByOne<T>(records: AsyncIterable<T>): AsyncGenerator<T[]> {
  for await (const r of records) yield [r];
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
      faultPoint(path);
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
      faultPoint(path);
      await handle.close();
      await rename(tmp, path);
    },
    async abort() {
      await handle.close().catch(() => {});
      await rm(tmp, { force: true });
    },
  };
}

/**
 * Runs `body` with a `write` function for `path`: the file appears only when `body` returns, and a
 * throw removes the temp file and is passed on. Returns what `body` returns.
 */
export async function writeAtomicStream<T>(path: string, body: (write: (text: string) => Promise<void>) => Promise<T>): Promise<T> {
  const writer = await openAtomicWriter(path);
  try {
    const result = await body((text) => writer.write(text));
    await writer.commit();
    return result;
  } catch (err) {
    await writer.abort();
    throw err;
  }
}
