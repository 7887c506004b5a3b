import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { GsrError, errorMessage } from './errors.js';

/** Streams the records of a JSON Lines file; a malformed line is an error naming file and line. */
export async function* readJsonl<T = unknown>(path: string): AsyncGenerator<T> {
  for await (const { value } of readJsonlWithLines<T>(path)) yield value;
}

/** Like {@link readJsonl}, with each record's 1-based line number (for errors naming `file:line`). */
export async function* readJsonlWithLines<T = unknown>(path: string): AsyncGenerator<{ line: number; value: T }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (err) {
    throw new GsrError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    let value: T;
    try {
      value = JSON.parse(line) as T;
    } catch {
      throw new GsrError(`${path}:${lineNo}: malformed JSON line`);
    }
    yield { line: lineNo, value };
  }
}

/** Reads a whole JSON Lines file into an array (for files known to be small). */
export async function readJsonlAll<T = unknown>(path: string): Promise<T[]> {
  const out: T[] = [];
  for await (const r of readJsonl<T>(path)) out.push(r);
  return out;
}

/** Reads and parses a JSON file with a one-line error naming the file. */
export async function readJsonFile<T = unknown>(path: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new GsrError(code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path}: ${code ?? String(err)}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new GsrError(`${path}: malformed JSON (${(err as Error).message})`);
  }
}

/** A line left out of a leniently read file, with why. */
export interface SkippedRecord {
  file: string;
  line: number;
  reason: string;
}

/**
 * Reads a JSON Lines file through `parse`; a line that is not JSON or that `parse` rejects is
 * skipped and named in `skipped` (file, line, reason), so one bad line never sinks a long run.
 */
export async function readJsonlLenient<T>(path: string, parse: (raw: unknown) => { value: T } | { error: string }, skipped: SkippedRecord[]): Promise<T[]> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new GsrError(code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path}: ${code ?? errorMessage(err)}`);
  }
  const out: T[] = [];
  let line = 0;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      skipped.push({ file: path, line, reason: 'malformed JSON' });
      continue;
    }
    const r = parse(raw);
    if ('error' in r) skipped.push({ file: path, line, reason: r.error });
    else out.push(r.value);
  }
  return out;
}
