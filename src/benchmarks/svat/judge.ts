/**
 * SVAT judging: exact match of yes/no. The answer is read from JSON (`{"answer": ...}`, via
 * extractJson) or, failing that, from the text when exactly one of the words yes / no appears.
 */
import { extractJson } from '../../formats/json-text.js';
import type { BenchPrompt } from '../../formats/chat-prompt.js';
import type { Judgement } from '../types.js';
import type { Answer, SvatItem } from './spec.js';

export const SVAT_MODES = ['exact'] as const;

export function readAnswer(output: string): Answer | null {
  const j = extractJson(output);
  if ('value' in j && j.value !== null && typeof j.value === 'object' && typeof (j.value as { answer?: unknown }).answer === 'string') {
    const a = (j.value as { answer: string }).answer.trim().toLowerCase();
    return a === 'yes' || a === 'no' ? a : null;
  }
  const words = new Set([...output.toLowerCase().matchAll(/\b(yes|no)\b/g)].map((m) => m[1]));
  return words.size === 1 ? ([...words][0] as Answer) : null;
}

export function judgeSvat(item: SvatItem, _prompt: BenchPrompt, output: string): Judgement {
  const a = readAnswer(output);
  if (a === null) return { valid: false, correct: false, reason: 'no single yes/no answer' };
  return { valid: true, correct: a === item.query.answer, extracted: a };
}
