/**
 * lmms-eval's `--log_samples` file, `%Y%m%d_%H%M%S_samples_<task>.jsonl` (docs/interop.md): one line per
 * document and filter, written with Python's json.dumps (so NaN may appear). The line holds
 * `doc_id`, `target`, `filtered_resps`, `resps` (dropped when equal to `filtered_resps`), `doc_hash`
 * (older writers also `prompt_hash`, `target_hash`), the task's metrics and `input` (the first request's
 * text). Older writers keep the response lists nested ([[text]], [text]); newer ones unwrap a single
 * element to the text itself. With lmms-eval's default `--reasoning_tags`, `resps` holds the task
 * filter's output (before the tags are stripped), not the model's raw answer.
 */
import { z } from 'zod';

const Responses = z.union([z.string(), z.array(z.unknown())]);

export const LmmsSampleSchema = z.looseObject({
  doc_id: z.number().int().nonnegative(),
  target: z.unknown().optional(),
  resps: Responses.optional(),
  filtered_resps: Responses.optional(),
  input: z.unknown().optional(),
  doc_hash: z.string().optional(),
});
export type LmmsSample = z.infer<typeof LmmsSampleSchema>;

/** The strings of a (possibly nested) response list, in order. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  return value === null || value === undefined ? [] : [typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean)];
}

/**
 * The answer of a sample closest to the model's own: `resps` where the line has it, else
 * `filtered_resps` (which the writer keeps alone only when both are equal). `filtered`: both are there,
 * so a filter (or reasoning-tag stripping) changed the answer, and `resps` is the raw answer only if
 * lmms-eval ran with `--reasoning_tags none`. Null output when there is none; an error when the line
 * holds several answers (repeats or several requests), since a prompt has one answer here.
 */
export function sampleOutput(s: LmmsSample): { output: string | null; filtered: boolean } | { error: string } {
  const texts = strings(s.resps !== undefined ? s.resps : s.filtered_resps);
  if (texts.length > 1) return { error: `${texts.length} responses in one sample (repeats or several requests); gsr keeps one answer per prompt` };
  return { output: texts[0] ?? null, filtered: s.resps !== undefined && s.filtered_resps !== undefined };
}

/** Parses one log line (already JSON-decoded): the sample, or why it is not one. */
export function parseLmmsSample(raw: unknown): { sample: LmmsSample } | { error: string } {
  const r = LmmsSampleSchema.safeParse(raw);
  if (r.success) return { sample: r.data };
  const issue = r.error.issues[0];
  return { error: `${issue.path.join('.') || '(record)'}: ${issue.message}` };
}
