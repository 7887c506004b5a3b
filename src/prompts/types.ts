import type { BenchPrompt, PromptPart } from '../formats/chat-prompt.js';

export type PromptTask = 'tg' | 'mc' | 'grounding' | 'dap';

/** One request to an MLLM: an item shown with one rotation of its options (or one grounding role). */
export interface PromptRecord {
  /** Stable hash of everything that determines the request (model settings added at run time). */
  key: string;
  /** Manifest item id. */
  item: string;
  split: string;
  relation: string;
  task: PromptTask;
  /** For DAP: the base task the hint was added to. */
  base_task?: 'tg' | 'mc';
  /** `permutation[i]` is the original option index shown at position i; empty for grounding. */
  permutation: number[];
  /** Rotation number (0-based) within the item. */
  rotation: number;
  /** Grounding prompts: which object is asked for. */
  role?: 'subject' | 'object';
  /** Grounding prompts: the noun asked for. */
  phrase?: string;
  /** Absolute image path. */
  image: string;
  text: string;
  /** Options in the order shown. */
  options: string[];
  /** Expected answer: a letter for MC, the caption for TG; absent for grounding. */
  expected?: string;
  /** Position of the correct option in `options`. */
  answer_index?: number;
  /** DAP: the depth hint included in the text. */
  hint?: string;
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
