/**
 * SVAT prompts: one user turn with the K demonstrations (each its image, then its question and
 * answer) followed by the query image and its question, so the request carries K + 1 images in
 * item order. The answer is asked for as JSON (`{"answer": "yes"|"no"}`), with a schema for
 * endpoints that take structured outputs; the judge also reads a bare yes or no.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { PromptPart, ResponseFormat } from '../../formats/chat-prompt.js';
import { GsrError } from '../../util/errors.js';
import type { DraftPrompt } from '../types.js';
import type { SvatItem } from './spec.js';

export const SvatPromptSettingsSchema = z.strictObject({
  /** Send the JSON schema as `response_format` (the client falls back where it is refused). */
  structured: z.boolean().default(true),
});
export type SvatPromptSettings = z.infer<typeof SvatPromptSettingsSchema>;

export function parseSvatPromptSettings(raw: unknown): SvatPromptSettings {
  const r = SvatPromptSettingsSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`SVAT prompt settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

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
  const parts: PromptPart[] = [];
  if (k > 0) parts.push({ type: 'text', text: `Here are ${k} example images, each with a question and its answer.` });
  item.demos.forEach((d, i) => {
    parts.push({ type: 'image', image: join(root, d.image) });
    parts.push({ type: 'text', text: `Example ${i + 1}. ${item.question} Answer: ${capital(d.answer)}` });
  });
  parts.push({ type: 'image', image: join(root, item.query.image) });
  parts.push({ type: 'text', text: `${item.question} Answer yes or no, as JSON: {"answer": "yes"} or {"answer": "no"}.` });
  return [{
    item: item.id, task: item.task, level: item.level, variant: `k${k}`, parts,
    ...(settings.structured ? { response_format: SVAT_RESPONSE_FORMAT } : {}),
    meta: { shots: k },
  }];
}
