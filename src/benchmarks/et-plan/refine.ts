/**
 * The optional LLM stage of task generation (docs/et-plan.md, "Filtering and rephrasing by an LLM";
 * the paper's section 4.1): a model judges whether each generated task makes common sense and
 * rewrites its instruction. Pure: prompts out, answers in; the pipeline's refine stage asks through
 * the cached runner. An answer that cannot be read keeps its task unchanged and is counted.
 */
import { z } from 'zod';
import type { BenchPrompt } from '../../formats/chat-prompt.js';
import { extractJson } from '../../formats/json-text.js';
import { GsrError } from '../../util/errors.js';
import { benchPromptKey } from '../prompts-file.js';
import type { ItemSet, RefineAnswer, RefineHooks } from '../types.js';
import { classLabel } from './classes.js';
import { occlusionSubsets } from './generate.js';
import { REFINE_OUTCOMES, type Criterion, type EtPlanItem, type NodeRef } from './task.js';
import { RELATION_WORDS } from './templates.js';

export const RefineSettingsSchema = z
  .strictObject({
    /** Drop tasks the model judges not sensible in an ordinary home. */
    filter: z.boolean().default(true),
    /** Replace each kept task's instruction by the model's rewording (checked to name every object). */
    rephrase: z.boolean().default(true),
    /** A reply that cannot be read: keep the task unchanged (default) or drop it. Counted either way. */
    unreadable: z.enum(['keep', 'drop']).default('keep'),
  })
  .refine((s) => s.filter || s.rephrase, { message: 'filter and rephrase are both off: leave refine out instead' });
export type RefineSettings = z.infer<typeof RefineSettingsSchema>;

export function parseRefineSettings(raw: unknown): RefineSettings {
  const r = RefineSettingsSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`et-plan refine: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

type RefineOutcome = (typeof REFINE_OUTCOMES)[number] | 'dropped';

/** The longest rewording taken (a longer one is rejected). */
const MAX_INSTRUCTION = 400;

const nodeWords = (n: NodeRef | 'character') => (n === 'character' ? 'the robot' : `the ${classLabel(n.class)}`);

function criterionText(c: Criterion): string {
  const rel = c.relation === 'CLOSE' ? 'is next to' : c.relation === 'ON' ? 'is on' : 'is inside';
  return `${nodeWords(c.from)} ${rel} ${nodeWords(c.to)}`;
}

/** The objects a rewording must name: targets, the constraint's anchor and every criterion node. */
export function namedObjects(item: EtPlanItem): string[] {
  const refs = [...item.targets, ...(item.constraint ? [item.constraint.anchor] : []), ...item.criteria.flat().flatMap((c) => [c.from, c.to])];
  return [...new Set(refs.filter((r): r is NodeRef => r !== 'character').map((r) => classLabel(r.class)))];
}

const RESPONSE_FORMAT = {
  name: 'et_plan_refine',
  schema: {
    type: 'object',
    properties: { sensible: { type: 'boolean' }, reason: { type: 'string' }, instruction: { type: 'string' } },
    required: ['sensible', 'reason', 'instruction'],
    additionalProperties: false,
  },
  strict: true,
};

/** The prompt text for one task (our wording; the paper gives none). */
export function refineText(item: EtPlanItem, s: RefineSettings): string {
  const steps = item.criteria.map((step, k) => `${item.criteria.length > 1 ? `${k + 1}. ` : ''}${step.map(criterionText).join(', and ')}`);
  const lines = [
    'A household robot gets tasks generated automatically from the scene graph of an apartment.',
    '',
    `Task: ${item.instruction}`,
    `Done when${item.criteria.length > 1 ? ', in this order' : ''}:`,
    ...steps.map((x) => `  ${x}`),
    ...(item.constraint ? [`The ${classLabel(item.targets[0].class)} meant is the one ${RELATION_WORDS.rel[item.constraint.relation]} ${classLabel(item.constraint.anchor.class)}.`] : []),
    '',
  ];
  if (s.filter) {
    lines.push('"sensible": would a person ask for this in an ordinary home? Answer false when an object could not sensibly be where the task puts it or the task makes no sense; "reason": why, in a few words.');
  } else {
    lines.push('"sensible": true; "reason": "".');
  }
  if (s.rephrase) {
    lines.push(`"instruction": the task as a person would say it, one sentence of natural English in your own words, with the same meaning (every object, where it goes, the order of steps and which one is meant). Name each of: ${namedObjects(item).join(', ')}.`);
  } else {
    lines.push('"instruction": "".');
  }
  lines.push('', 'Answer with one JSON object and nothing else: {"sensible": true or false, "reason": "...", "instruction": "..."}');
  return lines.join('\n');
}

/** One keyed prompt per item; `meta` holds the settings, so changing them asks again. */
export function refinePrompts(items: Iterable<EtPlanItem>, s: RefineSettings): BenchPrompt[] {
  return [...items].map((item) => {
    const draft: Omit<BenchPrompt, 'key'> = {
      benchmark: 'et-plan', item: item.id, task: item.task, level: item.level, variant: 'refine',
      parts: [{ type: 'text', text: refineText(item, s) }],
      response_format: RESPONSE_FORMAT,
      meta: { stage: 'refine', filter: s.filter, rephrase: s.rephrase },
    };
    return { key: benchPromptKey(draft), ...draft };
  });
}

/** A reply as read: what it says, or why it cannot be read (`unreadable`) or its wording is refused (`rejected`). */
export type RefineReading = { sensible: boolean; instruction: string | null } | { unreadable: string } | { sensible: true; rejected: string };

function readBoolean(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(yes|true)$/i.test(v.trim())) return true;
  if (typeof v === 'string' && /^(no|false)$/i.test(v.trim())) return false;
  return null;
}

/**
 * Reads one reply (the rule in docs/et-plan.md): a JSON object (whole, fenced or the first that
 * parses); `sensible` a boolean (or yes/no, true/false as text) when filtering; `instruction` one
 * non-empty line of at most 400 characters naming every object of `namedObjects` (case-insensitive)
 * when rephrasing.
 */
export function readRefineReply(item: EtPlanItem, output: string, s: RefineSettings): RefineReading {
  const j = extractJson(output);
  if ('error' in j) return { unreadable: j.error };
  const v = j.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { unreadable: 'the JSON value is not an object' };
  const o = v as Record<string, unknown>;
  let sensible = true;
  if (s.filter) {
    const b = readBoolean(o.sensible);
    if (b === null) return { unreadable: '"sensible" is not true or false' };
    sensible = b;
  }
  if (!sensible || !s.rephrase) return { sensible, instruction: null };
  if (typeof o.instruction !== 'string' || o.instruction.trim() === '') return { unreadable: '"instruction" is missing or empty' };
  const text = o.instruction.trim().replace(/[ \t]+/g, ' ');
  if (/[\r\n]/.test(text)) return { sensible: true, rejected: 'the instruction spans several lines' };
  if (text.length > MAX_INSTRUCTION) return { sensible: true, rejected: `the instruction is longer than ${MAX_INSTRUCTION} characters` };
  const lower = text.toLowerCase();
  const missing = namedObjects(item).filter((name) => !lower.includes(name.toLowerCase()));
  if (missing.length > 0) return { sensible: true, rejected: `the instruction does not name ${missing.join(', ')}` };
  return { sensible: true, instruction: text };
}

/** What the stage records on a task it asked about. */
export interface RefineRecord {
  model: string;
  outcome: (typeof REFINE_OUTCOMES)[number];
  /** The instruction before (the template's). */
  template: string;
  /** Why the reply was not used, when it was not. */
  problem?: string;
}

export type RefineSummary = Record<'items' | 'kept' | RefineOutcome, number>;

/**
 * Applies the answers (by item id) to the items: a task judged not sensible is dropped, a readable
 * rewording replaces the instruction, anything else keeps the task as it was (an unreadable reply is
 * dropped instead with `unreadable: drop`). Occlusion subsets are tagged again over the tasks kept
 * (their percentiles are over a family's tasks of the run). Items are not changed in place.
 */
export function applyRefinement(set: ItemSet<EtPlanItem>, answers: ReadonlyMap<string, RefineAnswer>, s: RefineSettings, model: string): { set: ItemSet<EtPlanItem>; summary: RefineSummary; problems: string[] } {
  const summary = Object.fromEntries(['items', 'kept', ...REFINE_OUTCOMES, 'dropped'].map((k) => [k, 0])) as RefineSummary;
  const problems: string[] = [];
  const kept: EtPlanItem[] = [];
  for (const item of set.items) {
    summary.items++;
    const a = answers.get(item.id);
    const record: RefineRecord = { model, outcome: 'passed', template: item.instruction };
    let instruction = item.instruction;
    if (a === undefined || a.status !== 'ok') {
      record.outcome = 'failed';
      record.problem = a?.error ?? 'no answer';
    } else {
      const r = readRefineReply(item, a.output, s);
      if ('unreadable' in r) {
        record.outcome = 'unreadable';
        record.problem = r.unreadable;
      } else if ('rejected' in r) {
        record.outcome = 'rephrase-rejected';
        record.problem = r.rejected;
      } else if (!r.sensible) {
        summary.dropped++;
        continue;
      } else if (r.instruction !== null) {
        record.outcome = 'rephrased';
        instruction = r.instruction;
      }
    }
    summary[record.outcome]++;
    if (record.problem !== undefined) problems.push(`${item.id}: ${record.outcome}: ${record.problem}`);
    if (record.outcome === 'unreadable' && s.unreadable === 'drop') continue;
    kept.push({ ...item, instruction, subsets: [], refined: record });
  }
  summary.kept = kept.length;
  const thresholds = occlusionSubsets(kept);
  const context = set.context !== null && typeof set.context === 'object' ? (set.context as Record<string, unknown>) : {};
  const occlusion = typeof context.occlusion === 'object' && context.occlusion !== null ? context.occlusion : {};
  return {
    set: { items: kept, context: { ...context, occlusion: { ...occlusion, thresholds }, refine: { model, settings: s, summary } } },
    summary,
    problems,
  };
}

export const etPlanRefine: RefineHooks<EtPlanItem> = {
  parseSettings: parseRefineSettings,
  prompts: (items, s) => refinePrompts(items, s as RefineSettings),
  apply: (set, answers, s, model) => applyRefinement(set, answers, s as RefineSettings, model),
};
