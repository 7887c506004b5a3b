/** prompts.jsonl: one request to an MLLM a line (docs/mllm.md). */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { parseBenchPrompt, type BenchPrompt, type PromptPart } from './chat-prompt.js';
import { writeJsonlAtomic } from '../util/fs.js';
import { readJsonlLenient, readJsonlWithLines, type SkippedRecord } from '../util/jsonl.js';

/** Option letter of a shown position: 0 -> A, 1 -> B, ... (26 at most). */
export function optionLetter(position: number): string {
  if (position < 0 || position >= 26) throw new GsrError(`no letter for option position ${position}`);
  return String.fromCharCode(65 + position);
}

/** Shown position of an option letter (either case): A -> 0. */
export function optionPosition(letter: string): number {
  return letter.toUpperCase().charCodeAt(0) - 65;
}

export const PROMPT_TASKS = ['tg', 'mc', 'grounding', 'dap'] as const;
export type PromptTask = (typeof PROMPT_TASKS)[number];

/** One request to an MLLM: an item shown with one rotation of its options (or one grounding role). */
export const PromptRecordSchema = z.object({
  /** Stable hash of everything that determines the request (model settings added at run time). */
  key: z.string().min(1),
  /** Manifest item id. */
  item: z.string().min(1),
  split: z.string(),
  relation: z.string(),
  task: z.enum(PROMPT_TASKS),
  /** For DAP: the base task the hint was added to. */
  base_task: z.enum(['tg', 'mc']).optional(),
  /** `permutation[i]` is the original option index shown at position i; empty for grounding. */
  permutation: z.array(z.number().int().nonnegative()),
  /** Rotation number (0-based) within the item. */
  rotation: z.number().int().nonnegative(),
  /** Grounding prompts: which object is asked for. */
  role: z.enum(['subject', 'object']).optional(),
  /** Grounding prompts: the noun asked for. */
  phrase: z.string().optional(),
  /** Absolute image path. */
  image: z.string().min(1),
  text: z.string().min(1),
  /** Options in the order shown. */
  options: z.array(z.string()),
  /** Expected answer: a letter for MC, the caption for TG; absent for grounding. */
  expected: z.string().optional(),
  /** Position of the correct option in `options`. */
  answer_index: z.number().int().optional(),
  /** DAP: the depth hint included in the text. */
  hint: z.string().optional(),
  /**
   * DAP: the depths the hint states, as numbers (not part of the key: the text holds them), so that
   * answerers reasoning from numbers read the hint rather than an annotation file.
   */
  hint_depth: z
    .object({ subject: z.number(), object: z.number(), unit: z.enum(['m', 'relative-inverse']), larger: z.enum(['farther', 'nearer']) })
    .optional(),
});
export type PromptRecord = z.infer<typeof PromptRecordSchema>;

// Reading keeps fields this version does not know, so files from newer versions pass through.
const PromptLine = PromptRecordSchema.loose();

/** Parses one prompt record; returns the record or a one-line reason. */
export function parsePromptRecord(raw: unknown): { prompt: PromptRecord } | { error: string } {
  const r = PromptLine.safeParse(raw);
  if (r.success) return { prompt: r.data as PromptRecord };
  const issue = r.error.issues[0];
  return { error: `${issue.path.join('.') || '(record)'}: ${issue.message}` };
}

/** Parses a line of any prompt file: a benchmark prompt when it names its `benchmark`, else a What'sUp prompt. */
export function parseAnyPrompt(raw: unknown): { prompt: AnyPrompt } | { error: string } {
  if (raw !== null && typeof raw === 'object' && 'benchmark' in raw) return parseBenchPrompt(raw);
  return parsePromptRecord(raw);
}

/** What the runner and the answerers take: a What'sUp prompt or a benchmark plug-in's prompt. */
export type AnyPrompt = PromptRecord | BenchPrompt;

/** True for a benchmark plug-in's prompt (ordered parts), false for a What'sUp prompt. */
export function isBenchPrompt(p: AnyPrompt): p is BenchPrompt {
  return 'benchmark' in p && typeof p.benchmark === 'string';
}

/** The prompt as ordered chat parts: a What'sUp prompt is its image, then its text. */
export function promptParts(p: AnyPrompt): PromptPart[] {
  if (isBenchPrompt(p)) return p.parts;
  return [{ type: 'image', image: p.image }, { type: 'text', text: p.text }];
}

/** The text of a prompt: its text parts joined, images left out (a What'sUp prompt's `text`). */
export function promptText(p: AnyPrompt): string {
  return isBenchPrompt(p) ? p.parts.map((part) => (part.type === 'text' ? part.text : '')).join('') : p.text;
}

/**
 * Every prompt of any prompt file (What'sUp or a plug-in's), in file order. A line that is not a
 * prompt is an error naming it: positions in the file identify prompts (exports, imports by index).
 */
export async function readAnyPrompts(path: string): Promise<AnyPrompt[]> {
  const out: AnyPrompt[] = [];
  for await (const { line, value } of readJsonlWithLines<unknown>(path)) {
    const r = parseAnyPrompt(value);
    if ('error' in r) throw new GsrError(`${path}:${line}: not a prompt: ${r.error}`);
    out.push(r.prompt);
  }
  return out;
}

/** Prompt records of a prompts.jsonl; bad lines are skipped and named in `skipped`. */
export function readPromptFile(path: string, skipped: SkippedRecord[]): Promise<PromptRecord[]> {
  return readJsonlLenient<PromptRecord>(path, (raw) => {
    const r = parsePromptRecord(raw);
    return 'prompt' in r ? { value: r.prompt } : r;
  }, skipped);
}

/** Writes prompt records (a list or a stream) to a prompts.jsonl atomically. */
export function writePromptFile(path: string, prompts: Iterable<PromptRecord> | AsyncIterable<PromptRecord>): Promise<void> {
  return writeJsonlAtomic(path, prompts);
}
