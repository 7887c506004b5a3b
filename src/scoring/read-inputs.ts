/**
 * The I/O edge that feeds scoring: reads prompt, response and annotation files. A record that is
 * not valid JSON or lacks a needed field is skipped and reported (file, line, reason), so one bad
 * line never sinks a whole scoring run.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { CocoFile } from '../annotate/coco.js';
import type { ResponseRecord } from '../mllm/types.js';
import { parsePromptRecord } from '../prompts/schema.js';
import type { PromptRecord } from '../prompts/types.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { readJsonFile } from '../util/jsonl.js';

export interface SkippedRecord {
  file: string;
  line: number;
  reason: string;
}

const ResponseSchema = z.looseObject({
  key: z.string().min(1),
  model: z.string().default('unknown'),
  output: z.string().nullable().default(''),
  status: z.enum(['ok', 'failed']).default('ok'),
  error: z.string().nullable().default(null),
  item: z.string().default(''),
  split: z.string().optional(),
  role: z.enum(['subject', 'object']).optional(),
});

type Parsed<T> = { value: T } | { error: string };

async function readLines<T>(path: string, parse: (raw: unknown) => Parsed<T>, skipped: SkippedRecord[]): Promise<T[]> {
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

/** Prompt records of a prompts.jsonl. */
export function readPromptFile(path: string, skipped: SkippedRecord[]): Promise<PromptRecord[]> {
  return readLines<PromptRecord>(path, (raw) => {
    const r = parsePromptRecord(raw);
    return 'prompt' in r ? { value: r.prompt } : r;
  }, skipped);
}

/** Response records of a responses.jsonl (from the runner or any harness: key + output at least). */
export function readResponseFile(path: string, skipped: SkippedRecord[]): Promise<ResponseRecord[]> {
  return readLines<ResponseRecord>(path, (raw) => {
    const r = ResponseSchema.safeParse(raw);
    if (r.success) {
      if (r.data.output === null) r.data.output = '';
      return { value: r.data as unknown as ResponseRecord };
    }
    const issue = r.error.issues[0];
    return { error: `${issue.path.join('.') || '(record)'}: ${issue.message}` };
  }, skipped);
}

const CocoSchema = z.looseObject({
  images: z.array(z.looseObject({ id: z.number(), item_id: z.string(), width: z.number().positive(), height: z.number().positive(), file_name: z.string() })),
  annotations: z.array(
    z.looseObject({
      id: z.number(),
      image_id: z.number(),
      bbox: z.array(z.number()).length(4),
      role: z.enum(['subject', 'object']),
      phrase: z.string(),
      score: z.number(),
    }),
  ),
});

/** A COCO annotation file, checked for the fields grounding needs. */
export async function readAnnotationFile(path: string): Promise<CocoFile> {
  const raw = await readJsonFile(path);
  const r = CocoSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new GsrError(`${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return raw as CocoFile;
}
