/**
 * CircularEval and VanillaEval over scored prompts (docs/reference.md, "Evaluation semantics"). Pure: records in, result out.
 *
 * - A prompt is one item shown with one rotation of its options. Its answer is extracted (answer.ts)
 *   and is correct when it picks the shown position of the correct option.
 * - CircularEval: an item is correct only if every rotation in the prompts is answered correctly.
 * - VanillaEval: single-pass accuracy, averaged over all prompts (every rotation counts as one pass),
 *   so it does not depend on where the dataset put the correct option. `vanilla_first` is the
 *   MMBench-style figure: rotation 0 only.
 * - A prompt with no response, a failed response, or an answer that cannot be read is wrong and is
 *   counted in `unparsed` (prompts); `missing` counts the first two kinds alone.
 * - Total Average = the mean of the split accuracies (Table 1).
 */
import { optionLetter, type PromptRecord } from '../formats/prompts.js';
import type { ResponseRecord } from '../formats/responses.js';
import { extractChoiceAnswer, extractTemplateAnswer, type Extraction } from './answer.js';
import { orderSplits } from '../formats/manifest.js';
import { mean } from '../util/stats.js';
import { GsrError } from '../util/errors.js';
import { addBias, biasResult, cellResult, newBiasTally, sumCells, type BiasTally, type CellSum, type ItemTally } from './reasoning-cells.js';
import type { ReasoningItemResult, ReasoningMode, ReasoningResult } from './reasoning-types.js';
import { WhatsupTally } from './whatsup-metrics.js';

export type { PositionBias, ReasoningCell, ReasoningItemResult, ReasoningMode, ReasoningResult } from './reasoning-types.js';

export interface ScoreReasoningOptions {
  mode?: ReasoningMode;
  /** Score only this model's responses (needed when the file holds several). */
  model?: string;
}

/** MC prompts (and DAP on an MC base) are answered with a letter; TG with a caption. */
function isChoicePrompt(prompt: PromptRecord): boolean {
  return (prompt.task === 'dap' ? (prompt.base_task ?? 'tg') : prompt.task) === 'mc';
}

/** Reads which option one prompt's answer picks. */
export function extractForPrompt(prompt: PromptRecord, output: string): Extraction {
  return isChoicePrompt(prompt) ? extractChoiceAnswer(output, prompt.options) : extractTemplateAnswer(output, prompt.options);
}

function answerIndexOf(p: PromptRecord): number {
  if (Number.isInteger(p.answer_index)) return p.answer_index as number;
  if (p.expected === undefined) return -1;
  const byText = p.options.indexOf(p.expected);
  if (byText >= 0) return byText;
  return /^[A-Z]$/.test(p.expected) ? p.expected.charCodeAt(0) - 65 : -1;
}

/**
 * Prompts indexed for scoring: grounding prompts dropped, one slot per distinct key (prompts sharing
 * a key share a slot). Scoring many models against one prompt list builds it once with
 * {@link indexPrompts} and passes it to {@link scoreReasoning}. It holds the records it was given:
 * index again after editing them.
 */
export class PromptIndex {
  /** Slot of each prompt in `prompts`. */
  readonly slots: Int32Array;
  readonly slotOf = new Map<string, number>();

  constructor(readonly prompts: readonly PromptRecord[]) {
    this.slots = new Int32Array(prompts.length);
    prompts.forEach((p, i) => {
      let slot = this.slotOf.get(p.key);
      if (slot === undefined) this.slotOf.set(p.key, (slot = this.slotOf.size));
      this.slots[i] = slot;
    });
  }
}

/** Indexes reasoning prompts once, for scoring several models' responses against them. */
export function indexPrompts(prompts: Iterable<PromptRecord>): PromptIndex {
  const kept: PromptRecord[] = [];
  for (const p of prompts) if (p.task !== 'grounding') kept.push(p);
  return new PromptIndex(kept);
}

/**
 * Picks the response per prompt key (the last `ok` one, else the last one), counts distinct keys that
 * match no prompt, and lists the models seen.
 */
function responsesBySlot(
  index: PromptIndex,
  responses: Iterable<ResponseRecord>,
  model: string | undefined,
): { bySlot: Array<ResponseRecord | undefined>; unmatched: number; models: Set<string> } {
  const bySlot = new Array<ResponseRecord | undefined>(index.slotOf.size).fill(undefined);
  let unmatched: Set<string> | undefined;
  const models = new Set<string>();
  let lastModel: string | undefined;
  for (const r of responses) {
    if (model !== undefined && r.model !== model) continue;
    // Responses come in runs of one model; skip the Set while the model repeats.
    if (r.model !== lastModel || models.size === 0) models.add((lastModel = r.model));
    const slot = index.slotOf.get(r.key);
    if (slot === undefined) {
      (unmatched ??= new Set()).add(r.key);
      continue;
    }
    const prev = bySlot[slot];
    if (prev === undefined || r.status === 'ok' || prev.status !== 'ok') bySlot[slot] = r;
  }
  return { bySlot, unmatched: unmatched?.size ?? 0, models };
}

/** Scores one prompt against its response (or its absence). */
export function scorePrompt(prompt: PromptRecord, response: ResponseRecord | undefined): ReasoningItemResult {
  const answerIndex = answerIndexOf(prompt);
  let output: string | null = null;
  let extracted: string | null = null;
  let chosen: number | null = null;
  let status: ReasoningItemResult['status'];
  let rule: string | null = null;
  let reason: string | null = null;
  if (response === undefined || response.status !== 'ok') {
    status = response === undefined ? 'missing' : 'failed';
    output = response?.output ?? null;
    reason = response?.error ?? status;
  } else {
    output = response.output;
    const choice = isChoicePrompt(prompt);
    const ex = choice ? extractChoiceAnswer(output, prompt.options) : extractTemplateAnswer(output, prompt.options);
    if (ex.status === 'unparsed') {
      status = 'unparsed';
      rule = ex.rule ?? null;
      reason = ex.reason;
    } else {
      status = 'ok';
      rule = ex.rule;
      chosen = ex.index;
      extracted = choice ? optionLetter(ex.index) : prompt.options[ex.index];
    }
  }
  return {
    key: prompt.key,
    item: prompt.item,
    split: prompt.split,
    relation: prompt.relation,
    task: prompt.task,
    rotation: prompt.rotation,
    permutation: prompt.permutation,
    output,
    extracted,
    chosen,
    answer_index: answerIndex,
    correct: chosen !== null && chosen === answerIndex,
    status,
    rule,
    reason,
  };
}

/**
 * Scores every prompt and aggregates per split, relation and answer position. `prompts` is the
 * prompt list, or its {@link PromptIndex} when several models are scored against it.
 */
export function scoreReasoning(
  prompts: Iterable<PromptRecord> | PromptIndex,
  responses: Iterable<ResponseRecord>,
  options: ScoreReasoningOptions = {},
): { result: ReasoningResult; items: ReasoningItemResult[] } {
  const mode = options.mode ?? 'both';
  const index = prompts instanceof PromptIndex ? prompts : indexPrompts(prompts);
  const { bySlot, unmatched, models } = responsesBySlot(index, responses, options.model);
  if (models.size > 1) throw new GsrError(`responses hold several models (${[...models].sort().join(', ')}); choose one with the model option`);
  const items: ReasoningItemResult[] = [];
  const tallies = new Map<string, Map<string, ItemTally>>(); // split -> item -> tally
  const bias = newBiasTally();
  const splitBias = new Map<string, BiasTally>();
  const reasons: Record<string, number> = {};
  const tasks = new Set<string>();
  const whatsup = new WhatsupTally();
  let lastTask: string | undefined;
  let lastSplit: string | undefined;
  let lastItem: string | undefined;
  let inSplit: Map<string, ItemTally> | undefined;
  let sb: BiasTally | undefined;
  let t: ItemTally | undefined;
  for (let i = 0; i < index.prompts.length; i++) {
    const p = index.prompts[i];
    if (p.task !== lastTask || tasks.size === 0) tasks.add((lastTask = p.task));
    const response = bySlot[index.slots[i]];
    const r = scorePrompt(p, response);
    items.push(r);
    // An item's rotations (and a split's items) are usually adjacent: reuse the last lookups.
    if (r.split !== lastSplit || inSplit === undefined || sb === undefined) {
      lastSplit = r.split;
      inSplit = tallies.get(r.split);
      if (!inSplit) tallies.set(r.split, (inSplit = new Map()));
      sb = splitBias.get(r.split);
      if (!sb) splitBias.set(r.split, (sb = newBiasTally()));
      t = undefined;
    }
    if (r.item !== lastItem || t === undefined) {
      lastItem = r.item;
      t = inSplit.get(r.item);
      if (!t) inSplit.set(r.item, (t = { split: r.split, relation: r.relation, prompts: 0, correct: 0, unparsed: 0, missing: 0, all: true, first: null }));
    }
    t.prompts++;
    if (r.correct) t.correct++;
    else t.all = false;
    if (r.status !== 'ok') {
      t.unparsed++;
      if (r.status !== 'unparsed') t.missing++;
      const why = r.reason ?? r.status;
      reasons[why] = (reasons[why] ?? 0) + 1;
    }
    if (r.rotation === 0) t.first = r.correct;
    addBias(bias, r);
    addBias(sb, r);
    whatsup.add(p, r);
  }
  const { splits, relations, splitRelations } = sumCells(tallies);
  const splitNames = orderSplits(splits.keys());
  const splitCells = Object.fromEntries(splitNames.map((s) => [s, cellResult(splits.get(s)!, mode)]));
  const avg = (f: 'circular' | 'vanilla' | 'vanilla_first') => {
    const vs = splitNames.map((s) => splitCells[s][f]).filter((v): v is number => v !== null);
    return vs.length === splitNames.length ? mean(vs) : null;
  };
  const cells = (m: Map<string, CellSum>) => Object.fromEntries([...m.keys()].sort().map((k) => [k, cellResult(m.get(k)!, mode)]));
  const result: ReasoningResult = {
    model: options.model ?? [...models][0] ?? 'unknown',
    task: tasks.size === 1 ? [...tasks][0] : [...tasks].sort().join('+') || 'none',
    mode,
    splits: splitCells,
    total_average: { circular: avg('circular'), vanilla: avg('vanilla'), vanilla_first: avg('vanilla_first') },
    position_bias: { ...biasResult(bias), splits: Object.fromEntries(splitNames.map((s) => [s, biasResult(splitBias.get(s)!)])) },
    relations: cells(relations),
    split_relations: cells(splitRelations),
    unmatched_responses: unmatched,
    unparsed_reasons: reasons,
  };
  const controlled = whatsup.result();
  if (controlled) result.whatsup = controlled;
  return { result, items };
}
