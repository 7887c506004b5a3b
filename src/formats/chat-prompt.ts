/**
 * The benchmark prompt format: one chat request as an ordered list of parts (text and images,
 * interleaved as the benchmark builds them), optionally with a JSON schema the answer must follow.
 * One line of a benchmark's prompts.jsonl. What'sUp prompts keep their own single-image form
 * (src/formats/prompts.ts); the runner and the answerers take either (`promptParts`).
 */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeJsonlAtomic } from '../util/fs.js';
import { readJsonlWithLines } from '../util/jsonl.js';

export const TextPartSchema = z.strictObject({ type: z.literal('text'), text: z.string() });
export const ImagePartSchema = z.strictObject({
  type: z.literal('image'),
  /** Absolute path of the image file. */
  image: z.string().min(1),
  /** sha256 of the file's bytes (the prompt key covers content, not paths). */
  sha256: z.string().optional(),
});
export const PromptPartSchema = z.discriminatedUnion('type', [TextPartSchema, ImagePartSchema]);
export type PromptPart = z.infer<typeof PromptPartSchema>;

/**
 * A JSON schema for structured outputs (`response_format: {type: "json_schema"}`), sent where the
 * endpoint supports it; answers are read with `extractJson` either way.
 */
export const ResponseFormatSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, "_" and "-", at most 64'),
  schema: z.record(z.string(), z.unknown()),
  strict: z.boolean().optional(),
});
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

export const BenchPromptSchema = z.strictObject({
  /** Stable hash of everything that determines the request (`benchPromptKey`). */
  key: z.string().min(1),
  /** The registered benchmark that built it (its plug-in extracts and scores the answer). */
  benchmark: z.string().min(1),
  /** Item id (unique within the benchmark's items file). */
  item: z.string().min(1),
  task: z.string().min(1),
  level: z.string(),
  /** Input variant, e.g. image / text. */
  variant: z.string(),
  /** Sent in this order as one user turn. */
  parts: z.array(PromptPartSchema).min(1),
  response_format: ResponseFormatSchema.optional(),
  /** The request's temperature where the benchmark's protocol fixes one per prompt (null: the API's default, not sent); absent: the model's. */
  temperature: z.number().min(0).nullable().optional(),
  /** Benchmark-specific settings that shaped the prompt (shots, drawn examples, seed). */
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type BenchPrompt = z.infer<typeof BenchPromptSchema>;

/** Parses one benchmark prompt line; returns it or a one-line reason. */
export function parseBenchPrompt(raw: unknown): { prompt: BenchPrompt } | { error: string } {
  const r = BenchPromptSchema.safeParse(raw);
  if (r.success) return { prompt: r.data };
  const issue = r.error.issues[0];
  return { error: `${issue.path.join('.') || '(record)'}: ${issue.message}` };
}

/** Number of image parts (for summaries and checks). */
export function imageCount(parts: readonly PromptPart[]): number {
  return parts.reduce((n, p) => n + (p.type === 'image' ? 1 : 0), 0);
}

/** Joins adjacent text parts (a template cut at its placeholders leaves several in a row). */
export function mergeTextParts(parts: readonly PromptPart[]): PromptPart[] {
  const out: PromptPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (p.type === 'text' && last?.type === 'text') out[out.length - 1] = { type: 'text', text: last.text + p.text };
    else if (p.type === 'image' || p.text !== '') out.push(p);
  }
  return out;
}

/** Reads a benchmark prompts file; a bad line is an error naming file and line. */
export async function readBenchPrompts(path: string): Promise<BenchPrompt[]> {
  const out: BenchPrompt[] = [];
  for await (const { line, value } of readJsonlWithLines<unknown>(path)) {
    const r = parseBenchPrompt(value);
    if ('error' in r) throw new GsrError(`${path}:${line}: not a benchmark prompt: ${r.error}`);
    out.push(r.prompt);
  }
  return out;
}

/** Writes a benchmark prompts file atomically. */
export function writeBenchPrompts(path: string, prompts: Iterable<BenchPrompt>): Promise<void> {
  return writeJsonlAtomic(path, prompts);
}
