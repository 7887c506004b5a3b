/**
 * SVAT prompts: one user turn laid out as the paper's Table 3, the instruction line, then each
 * demonstration (`Example k:`, its image, `Question:`, `Answer: Yes|No`), then `Query:`, the query
 * image, its question and a bare `Answer:` for the model to complete; K + 1 images in item order.
 * The `json` format is this toolkit's lenient variant: the last line asks for `{"answer": ...}` and
 * the prompt carries a JSON schema for endpoints that take structured outputs.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { PromptPart, ResponseFormat } from '../../formats/chat-prompt.js';
import { GsrError } from '../../util/errors.js';
import type { DraftPrompt } from '../types.js';
import type { SvatItem } from './spec.js';

export const SvatPromptSettingsSchema = z.strictObject({
  /** paper: Table 3, answered by completing `Answer:`; json: ask for `{"answer": "yes"|"no"}` with a schema. */
  format: z.enum(['paper', 'json']).default('paper'),
});
export type SvatPromptSettings = z.infer<typeof SvatPromptSettingsSchema>;

export function parseSvatPromptSettings(raw: unknown): SvatPromptSettings {
  const r = SvatPromptSettingsSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`SVAT prompt settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

/** Table 3's first line. */
export const SVAT_INSTRUCTION = 'Please answer the following question based on the provided examples.';

export const SVAT_RESPONSE_FORMAT: ResponseFormat = {
  name: 'svat_answer',
  schema: { type: 'object', properties: { answer: { type: 'string', enum: ['yes', 'no'] } }, required: ['answer'], additionalProperties: false },
  strict: true,
};

const capital = (a: string) => a[0].toUpperCase() + a.slice(1);

export function buildSvatPrompts(item: SvatItem, settings: SvatPromptSettings): DraftPrompt[] {
  const root = item.root;
  if (root === undefined) throw new GsrError(`${item.id}: no root folder for its images`);
  const k = item.demos.length;
  const json = settings.format === 'json';
  const parts: PromptPart[] = [];
  let text = `${SVAT_INSTRUCTION}\n\n`;
  item.demos.forEach((d, i) => {
    parts.push({ type: 'text', text: `${text}Example ${i + 1}:\n` }, { type: 'image', image: join(root, d.image) });
    text = `\nQuestion: ${item.question}\nAnswer: ${capital(d.answer)}\n\n`;
  });
  parts.push({ type: 'text', text: `${text}Query:\n` }, { type: 'image', image: join(root, item.query.image) });
  parts.push({ type: 'text', text: `\nQuestion: ${item.question}\n${json ? 'Answer yes or no, as JSON: {"answer": "yes"} or {"answer": "no"}.' : 'Answer:'}` });
  return [{
    item: item.id, task: item.task, level: item.level, variant: json ? `k${k}-json` : `k${k}`, parts,
    ...(json ? { response_format: SVAT_RESPONSE_FORMAT } : {}),
    meta: { shots: k, format: settings.format },
  }];
}
