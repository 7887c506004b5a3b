/**
 * SVAT judging, two modes. `exact` (the default, the paper's exact match; following the
 * demonstrations' format is part of what is measured): the first word of the output, case-insensitive
 * and stripped of trailing punctuation, must be Yes or No; anything else is invalid, and wrong.
 * `lenient` (this toolkit's, for the `json` prompt format): `{"answer": ...}` read from JSON
 * (extractJson), else the one word yes or no when exactly one of them appears.
 */
import { extractJson } from '../../formats/json-text.js';
import type { BenchPrompt } from '../../formats/chat-prompt.js';
import type { Judgement } from '../types.js';
import type { Answer, SvatItem } from './spec.js';

export const SVAT_MODES = ['exact', 'lenient'] as const;
export type SvatMode = (typeof SVAT_MODES)[number];

/** The paper's decoding (Appendix A): at most 5 new tokens, greedy. */
export const SVAT_REQUEST = { max_tokens: 5, temperature: 0 } as const;

/** The first word, yes or no, as the exact mode reads it (null: anything else). */
export function readFirstWord(output: string): Answer | null {
  const word = output.trim().split(/\s+/, 1)[0].replace(/[\p{P}\p{S}]+$/u, '').toLowerCase();
  return word === 'yes' || word === 'no' ? word : null;
}

/** The lenient reading: JSON's `answer`, else the single yes/no word in the text (null: none or both). */
export function readLenient(output: string): Answer | null {
  const j = extractJson(output);
  if ('value' in j && j.value !== null && typeof j.value === 'object' && typeof (j.value as { answer?: unknown }).answer === 'string') {
    const a = (j.value as { answer: string }).answer.trim().toLowerCase();
    return a === 'yes' || a === 'no' ? a : null;
  }
  const words = new Set([...output.toLowerCase().matchAll(/\b(yes|no)\b/g)].map((m) => m[1]));
  return words.size === 1 ? ([...words][0] as Answer) : null;
}

export function judgeSvat(item: SvatItem, _prompt: BenchPrompt, output: string, mode: string = SVAT_MODES[0]): Judgement {
  const a = mode === 'lenient' ? readLenient(output) : readFirstWord(output);
  if (a === null) return { valid: false, correct: false, reason: mode === 'lenient' ? 'no single yes/no answer' : 'the first word is not Yes or No' };
  return { valid: true, correct: a === item.query.answer, extracted: a };
}
