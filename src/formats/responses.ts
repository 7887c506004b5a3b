/** responses.jsonl: one model answer a line (docs/mllm.md), and other harnesses' prediction lines. */
import { z } from 'zod';
import { writeJsonlAtomic } from '../util/fs.js';
import { readJsonlLenient, type SkippedRecord } from '../util/jsonl.js';

const RoleSchema = z.enum(['subject', 'object']);

/** One model's answer to one prompt, as exported from the run store or imported from elsewhere. */
export const ResponseRecordSchema = z.object({
  key: z.string().min(1),
  model: z.string(),
  /** Raw model text; empty when failed. */
  output: z.string(),
  status: z.enum(['ok', 'failed']),
  error: z.string().nullable(),
  /** Run-store exports: attempts made and the last attempt's latency. */
  attempts: z.number().int().nonnegative().optional(),
  latency_ms: z.number().nonnegative().nullable().optional(),
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
  /** Copied from the prompt so responses can be scored without it. */
  item: z.string(),
  split: z.string().optional(),
  task: z.string().optional(),
  permutation: z.array(z.number().int().nonnegative()).optional(),
  role: RoleSchema.optional(),
  rotation: z.number().int().nonnegative().optional(),
  /** Run-store exports: the settings id the answer was made under. */
  settings: z.string().optional(),
  /**
   * Answers asked for this prompt when the run allowed several (invalid outputs re-asked); the
   * output above is the last. Absent when the run asked once.
   */
  answer_attempts: z.number().int().positive().optional(),
});
export type ResponseRecord = z.infer<typeof ResponseRecordSchema>;

// Reading accepts answers from any harness: a key and an output at least; unknown fields pass through.
const ResponseLine = ResponseRecordSchema.extend({
  model: z.string().default('unknown'),
  output: z.string().nullable().default(''),
  status: z.enum(['ok', 'failed']).default('ok'),
  error: z.string().nullable().default(null),
  item: z.string().default(''),
}).loose();

/** Response records of a responses.jsonl; bad lines are skipped and named in `skipped`. */
export function readResponseFile(path: string, skipped: SkippedRecord[]): Promise<ResponseRecord[]> {
  return readJsonlLenient<ResponseRecord>(path, (raw) => {
    const r = ResponseLine.safeParse(raw);
    if (r.success) {
      if (r.data.output === null) r.data.output = '';
      return { value: r.data as ResponseRecord };
    }
    const issue = r.error.issues[0];
    return { error: `${issue.path.join('.') || '(record)'}: ${issue.message}` };
  }, skipped);
}

/** Writes response records (a list or a stream) to a responses.jsonl atomically. */
export function writeResponseFile(path: string, records: Iterable<ResponseRecord> | AsyncIterable<ResponseRecord>): Promise<void> {
  return writeJsonlAtomic(path, records);
}

/**
 * A prediction line from another harness (`gsr responses import`): everything optional but the
 * output; the prompt file fills in what is missing.
 */
export const ImportedResponseSchema = z.looseObject({
  key: z.string().min(1).optional(),
  output: z.string().nullable().optional(),
  status: z.enum(['ok', 'failed']).optional(),
  error: z.string().nullable().optional(),
  attempts: z.number().int().nonnegative().optional(),
  latency_ms: z.number().nonnegative().nullable().optional(),
  item: z.string().min(1).optional(),
  split: z.string().optional(),
  task: z.string().optional(),
  permutation: z.array(z.number().int().nonnegative()).optional(),
  rotation: z.number().int().nonnegative().optional(),
  role: RoleSchema.optional(),
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
});
