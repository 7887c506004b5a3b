import { z } from 'zod';
import { parseBenchPrompt } from '../formats/chat-prompt.js';
import type { AnyPrompt, PromptRecord } from './types.js';

/** Validates prompt lines read back from a file (the runner and `responses import` use it). */
export const PromptRecordSchema = z.looseObject({
  key: z.string().min(1),
  item: z.string().min(1),
  split: z.string(),
  relation: z.string(),
  task: z.enum(['tg', 'mc', 'grounding', 'dap']),
  base_task: z.enum(['tg', 'mc']).optional(),
  permutation: z.array(z.number().int().nonnegative()),
  rotation: z.number().int().nonnegative(),
  role: z.enum(['subject', 'object']).optional(),
  phrase: z.string().optional(),
  image: z.string().min(1),
  text: z.string().min(1),
  options: z.array(z.string()),
  expected: z.string().optional(),
  answer_index: z.number().int().optional(),
  hint: z.string().optional(),
});

/** Parses one prompt record; returns the record or a one-line reason. */
export function parsePromptRecord(raw: unknown): { prompt: PromptRecord } | { error: string } {
  const r = PromptRecordSchema.safeParse(raw);
  if (r.success) return { prompt: r.data as PromptRecord };
  const issue = r.error.issues[0];
  return { error: `${issue.path.join('.') || '(record)'}: ${issue.message}` };
}

/** Parses a line of any prompt file: a benchmark prompt when it names its `benchmark`, else a What'sUp prompt. */
export function parseAnyPrompt(raw: unknown): { prompt: AnyPrompt } | { error: string } {
  if (raw !== null && typeof raw === 'object' && 'benchmark' in raw) return parseBenchPrompt(raw);
  return parsePromptRecord(raw);
}
