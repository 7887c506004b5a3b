/** How a baseline writes its choice so the scorer reads it like any model's answer. Pure. */
import { isBenchPrompt, optionLetter, type AnyPrompt, type PromptRecord } from '../../formats/prompts.js';
import { AnswerError } from '../errors.js';
import type { Xyxy } from './geometry-reasoner.js';

/** `mc` answers with a letter, `tg` with the caption; DAP follows its base task. */
export function answerStyle(prompt: PromptRecord): 'mc' | 'tg' | 'grounding' {
  if (prompt.task === 'grounding') return 'grounding';
  if (prompt.task === 'dap') return prompt.base_task ?? 'tg';
  return prompt.task;
}

/** The answer text for choosing shown option `index`. */
export function choiceText(prompt: PromptRecord, index: number): string {
  if (answerStyle(prompt) === 'mc') return optionLetter(index);
  return prompt.options[index];
}

/** Box formats the baselines can write (names as in the box-format table of docs/scoring.md). */
export const BASELINE_BOX_FORMATS = ['qwen2-vl', 'llava'] as const;
export type BaselineBoxFormat = (typeof BASELINE_BOX_FORMATS)[number];

/**
 * Writes a pixel box in a declared format: `qwen2-vl` is `<|box_start|>(x1,y1),(x2,y2)<|box_end|>`
 * on a 0-1000 grid; `llava` is `[x1, y1, x2, y2]` as 0-1 fractions of the (unpadded) image.
 */
export function formatBox(box: Xyxy, imageWidth: number, imageHeight: number, format: BaselineBoxFormat): string {
  const fx = (v: number) => Math.min(Math.max(v / imageWidth, 0), 1);
  const fy = (v: number) => Math.min(Math.max(v / imageHeight, 0), 1);
  if (format === 'llava') return `[${[fx(box[0]), fy(box[1]), fx(box[2]), fy(box[3])].map((v) => Number(v.toFixed(4))).join(', ')}]`;
  const nx = (v: number) => Math.round(fx(v) * 1000);
  const ny = (v: number) => Math.round(fy(v) * 1000);
  return `<|box_start|>(${nx(box[0])},${ny(box[1])}),(${nx(box[2])},${ny(box[3])})<|box_end|>`;
}

/** The What'sUp baselines answer What'sUp prompts only; a benchmark plug-in brings its own. */
export function whatsupPrompt(p: AnyPrompt, name: string): PromptRecord {
  if (isBenchPrompt(p)) throw new AnswerError(`${name} answers What'sUp prompts only, not ${p.benchmark} prompts (use that benchmark's baselines)`, false);
  return p;
}
