import type { ManifestItem } from '../formats/manifest.js';
import { promptKey } from './key.js';
import { rotations } from './rotations.js';
import { fillTemplate, type Templates } from './templates.js';
import { optionLetter, type PromptRecord, type PromptTask } from '../formats/prompts.js';

/** What a builder needs besides the item; the caller does the I/O (image hash, hint). */
export interface BuildContext {
  templates: Templates;
  /** Absolute image path. */
  image: string;
  /** sha256 of the image bytes, part of every key. */
  imageSha256: string;
  /** Rotations per item (default: one per option). */
  permutations?: number;
  /** DAP: the base prompt type and the hint text. */
  baseTask?: 'tg' | 'mc';
  hint?: string;
  /** DAP: the depths the hint states. */
  hintDepth?: PromptRecord['hint_depth'];
}

function optionPrompt(item: ManifestItem, task: 'tg' | 'mc', permutation: number[], t: Templates): { text: string; options: string[]; expected: string; answerIndex: number } {
  const options = permutation.map((i) => item.options[i]);
  const answerIndex = permutation.indexOf(item.answer);
  if (task === 'mc') {
    const lines = options.map((caption, pos) => fillTemplate(t.mc_option, { letter: optionLetter(pos), caption }));
    return { text: fillTemplate(t.mc, { options: lines.join('\n') }), options, expected: optionLetter(answerIndex), answerIndex };
  }
  const lines = options.map((caption, pos) => fillTemplate(t.tg_option, { caption, index: pos + 1 }));
  return { text: fillTemplate(t.tg, { options: lines.join('\n') }), options, expected: item.options[item.answer], answerIndex };
}

/**
 * The prompts of one manifest item for one task: one per rotation for TG/MC/DAP, one per role for
 * grounding. Pure: no I/O.
 */
export function buildItemPrompts(item: ManifestItem, task: PromptTask, ctx: BuildContext): PromptRecord[] {
  const common = { item: item.id, split: item.split, relation: item.relation, image: ctx.image };
  if (task === 'grounding') {
    const roles: Array<['subject' | 'object', string]> = [['subject', item.subject]];
    if (item.object !== null) roles.push(['object', item.object]);
    return roles.map(([role, phrase]) => {
      const text = fillTemplate(ctx.templates.grounding, { object: phrase });
      const key = promptKey({ item: item.id, task, text, options: [], permutation: [], rotation: 0, role, phrase, image_sha256: ctx.imageSha256 });
      return { key, ...common, task, permutation: [], rotation: 0, role, phrase, text, options: [] };
    });
  }
  const base = task === 'dap' ? (ctx.baseTask ?? 'mc') : task;
  if (task === 'dap' && ctx.hint === undefined) throw new Error('DAP prompts need a hint');
  return rotations(item.options.length, ctx.permutations === undefined ? undefined : Math.min(ctx.permutations, item.options.length)).map((permutation, rotation) => {
    const p = optionPrompt(item, base, permutation, ctx.templates);
    const text = task === 'dap' ? fillTemplate(ctx.templates.dap, { hint: ctx.hint!, prompt: p.text }) : p.text;
    const base_task = task === 'dap' ? base : undefined;
    const key = promptKey({ item: item.id, task, base_task, text, options: p.options, permutation, rotation, image_sha256: ctx.imageSha256 });
    const record: PromptRecord = { key, ...common, task, permutation, rotation, text, options: p.options, expected: p.expected, answer_index: p.answerIndex };
    if (task === 'dap') {
      record.base_task = base;
      record.hint = ctx.hint;
      if (ctx.hintDepth) record.hint_depth = ctx.hintDepth;
    }
    return record;
  });
}
